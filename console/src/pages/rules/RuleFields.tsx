// The fields every rule has beside its name and its type's own: when it fires (queries and
// how they match, the shopper's filters, segments, query profiles, the effective start and
// end), which rule wins (precedence) and how it is sorted out (tags, groups). Each field has
// a one-line explanation in the merchandiser's words, and the API's message when it refused.
import { TagsInput } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import type { ReactNode } from 'react';
import type { ErrorBody } from '../../api/client';
import { plainMessageFor } from '../../words';
import type { Rewrite, Rule } from './shared';
import { browserZone, isoOf, wallOf } from './when';
import './editor.css';

export type QueryMatch = 'is' | 'contains' | 'startsWith' | 'empty';

/** The match choices, in the merchandiser's words. */
const MATCHES: [QueryMatch, string][] = [
  ['is', 'Whole query'],
  ['contains', 'Contains the words'],
  ['startsWith', 'Starts with the words'],
  ['empty', 'No text (browse and category pages)'],
];

/** The rule's common settings as the form holds them. */
export interface RuleSettings {
  queries: string[];
  queryMatch: QueryMatch;
  /** The shopper's filters: a field and the values any of which it must have. */
  filters: { fieldName: string; values: string[] }[];
  queryProfiles: string[];
  /** ISO 8601 instants, as stored. */
  effectiveStart: string | null;
  effectiveEnd: string | null;
  /** As typed: a number that is not one is sent as typed, for the API to name. */
  precedence: string;
  tags: string[];
  groups: string[];
  segments: string[];
}

export const NEW_RULE_SETTINGS: RuleSettings = {
  queries: [],
  queryMatch: 'is',
  filters: [],
  queryProfiles: [],
  effectiveStart: null,
  effectiveEnd: null,
  precedence: '0',
  tags: [],
  groups: [],
  segments: [],
};

/** A stored rule's settings, for the form. */
export function settingsOf(rule: Rule): RuleSettings {
  const c = rule.conditions;
  return {
    queries: [...c.queries],
    queryMatch: c.queryMatch ?? 'is',
    filters: c.fieldValues.map((f) => ({ fieldName: f.fieldName, values: [...f.values] })),
    queryProfiles: [...c.queryProfiles],
    effectiveStart: c.effectiveStart,
    effectiveEnd: c.effectiveEnd,
    precedence: String(rule.precedence),
    tags: [...rule.tags],
    groups: [...rule.groups],
    segments: [...rule.segments],
  };
}

/** A stored rewrite's settings, for the form: a rewrite has tags, a start and an end. */
export function rewriteSettingsOf(rewrite: Rewrite): RuleSettings {
  return {
    ...NEW_RULE_SETTINGS,
    tags: [...rewrite.tags],
    effectiveStart: rewrite.effectiveStart,
    effectiveEnd: rewrite.effectiveEnd,
  };
}

/** A rewrite's settings in the API's shape. */
export function rewriteBodyOf(settings: RuleSettings) {
  return {
    tags: settings.tags,
    effectiveStart: settings.effectiveStart,
    effectiveEnd: settings.effectiveEnd,
  };
}

/**
 * The settings in the API's shape. `queryMatch` is sent when the rule had it or it is not the
 * default, so that saving a rule from before the field existed does not make it differ from live.
 */
export function bodyOf(settings: RuleSettings, before: Rule | undefined) {
  const text = settings.precedence.trim();
  const precedence = text === '' ? 0 : Number.isNaN(Number(text)) ? text : Number(text);
  const keepMatch = settings.queryMatch === 'contains' || before?.conditions.queryMatch !== undefined;
  return {
    tags: settings.tags,
    groups: settings.groups,
    segments: settings.segments,
    // A precedence that is not a number goes as typed, for the API to name beside the field.
    precedence: precedence as number,
    conditions: {
      queries: settings.queries,
      ...(keepMatch ? { queryMatch: settings.queryMatch } : {}),
      fieldValues: settings.filters
        .map((f) => ({ fieldName: f.fieldName.trim(), values: f.values }))
        .filter((f) => f.fieldName !== '' || f.values.length > 0),
      queryProfiles: settings.queryProfiles,
      effectiveStart: settings.effectiveStart,
      effectiveEnd: settings.effectiveEnd,
    },
  };
}

/** The labels of these fields, also for the API's messages about them. */
export const SETTING_LABELS: Record<string, string> = {
  'conditions.queries': 'Queries',
  'conditions.queryMatch': 'Match',
  'conditions.fieldValues': "Shopper's filters",
  'conditions.queryProfiles': 'Query profiles',
  'conditions.effectiveStart': 'Start',
  'conditions.effectiveEnd': 'End',
  effectiveStart: 'Start',
  effectiveEnd: 'End',
  precedence: 'Precedence',
  tags: 'Tags',
  groups: 'Rule groups',
  segments: 'Segments',
};

/** The API names of the fields shown here, to tell their messages from the others. */
export const SETTING_FIELDS = Object.keys(SETTING_LABELS);

/** The names of the calendar's arrow buttons, for screen readers (the month and year buttons show theirs). */
const CALENDAR_LABELS = {
  nextMonth: 'Next month',
  previousMonth: 'Previous month',
  nextYear: 'Next year',
  previousYear: 'Previous year',
  nextDecade: 'Next decade',
  previousDecade: 'Previous decade',
};

/** What the queries do under each match, in words. */
export function matchExplanation(match: QueryMatch, queries: string[]): string {
  const first = queries[0];
  if (match === 'empty')
    return 'Fires when the shopper sends no text: a browse or category page (filters only). Leave the queries empty.';
  if (queries.length === 0) return 'No queries: the rule fires for every query.';
  if (match === 'startsWith')
    return `Fires when the shopper's query begins with the words of one of these${
      first ? ` (“${first}” also fires for “${first} sale”, not for “best ${first}”)` : ''
    }.`;
  if (match === 'contains')
    return `Fires when the shopper's query contains all the words of one of these, in any order${
      first ? ` (“${first}” also fires for “best ${first}”)` : ''
    }.`;
  return `Fires when the shopper's whole query is one of these${
    first ? ` (“${first}”, not “best ${first}”)` : ''
  }.`;
}

export function RuleFields({
  rewrite = false,
  settings,
  onChange,
  error,
  firesFor,
}: {
  /** A rewrite's fields only (tags, start and end: it has no conditions). */
  rewrite?: boolean;
  settings: RuleSettings;
  onChange: (settings: RuleSettings) => void;
  error: ErrorBody | undefined;
  /** The "Fires for" hint, shown under the match. */
  firesFor?: ReactNode;
}) {
  const set = <K extends keyof RuleSettings>(name: K, value: RuleSettings[K]) =>
    onChange({ ...settings, [name]: value });
  const messageOf = (field: string) => plainMessageFor(error, field, SETTING_LABELS[field] ?? field);
  const zone = browserZone();
  const tags = (field: keyof RuleSettings & string, api: string, label: string, hint: string) => (
    <TagsInput
      id={`rule-${field}`}
      label={label}
      description={hint}
      value={settings[field] as string[]}
      onChange={(value) => set(field, value as never)}
      error={messageOf(api)}
      splitChars={[',']}
      clearable
      acceptValueOnBlur
    />
  );
  const when = (field: 'effectiveStart' | 'effectiveEnd', label: string, hint: string) => (
    <DateTimePicker
      id={`rule-${field}`}
      label={`${label} (${zone})`}
      description={hint}
      value={wallOf(settings[field])}
      onChange={(value) => set(field, isoOf(value))}
      valueFormat="D MMM YYYY, HH:mm"
      placeholder={field === 'effectiveStart' ? 'No start' : 'No end'}
      clearable
      error={messageOf(rewrite ? field : `conditions.${field}`)}
      submitButtonProps={{ 'aria-label': `Set the ${label.toLowerCase()}` }}
      timePickerProps={{
        hoursInputLabel: 'Hours',
        minutesInputLabel: 'Minutes',
        popoverProps: { withinPortal: false },
      }}
      clearButtonProps={{ 'aria-label': `No ${label.toLowerCase()}` }}
      popoverProps={{ withinPortal: true }}
      ariaLabels={CALENDAR_LABELS}
      // Shops sell on weekends too; the library's red for them is also too light to read.
      weekendDays={[]}
      // The days of the months around, greyed, are too light to read: the month's own only.
      hideOutsideDates
    />
  );
  const schedule = (
    <div className="when">
      {when(
        'effectiveStart',
        'Start',
        `The ${rewrite ? 'rewrite applies' : 'rule fires'} from this moment on, once published; empty: from publishing.`,
      )}
      {when(
        'effectiveEnd',
        'End',
        `The ${rewrite ? 'rewrite stops applying' : 'rule stops firing'} after this moment; empty: until unpublished.`,
      )}
    </div>
  );
  if (rewrite)
    return (
      <>
        {schedule}
        {tags(
          'tags',
          'tags',
          'Tags',
          'Words to find the rewrite by in the list (for example autumn, campaign).',
        )}
      </>
    );
  return (
    <>
      {tags(
        'queries',
        'conditions.queries',
        'Queries',
        'The shoppers’ queries this rule is for; empty: every query. Press Enter or type a comma after each.',
      )}
      <fieldset className="choice" aria-describedby="rule-match-hint">
        <legend>How the queries match</legend>
        {MATCHES.map(([value, label]) => (
          <label className="inline" key={value}>
            <input
              type="radio"
              name="queryMatch"
              value={value}
              checked={settings.queryMatch === value}
              onChange={() => set('queryMatch', value)}
            />
            {label}
          </label>
        ))}
        <p className="hint" id="rule-match-hint">
          {matchExplanation(settings.queryMatch, settings.queries)}
        </p>
        {firesFor}
      </fieldset>
      <fieldset className="choice" aria-describedby="rule-filters-hint">
        <legend>Shopper's filters</legend>
        <p className="hint" id="rule-filters-hint">
          Fires only when the shopper has filtered on each of these fields, with one of its values (for
          example brand: acme). None: whatever the filters.
        </p>
        {settings.filters.map((filter, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own
          <div className="filter-row" key={i}>
            <div className="field">
              <label htmlFor={`rule-filter-field-${i}`}>Filter field {i + 1}</label>
              <input
                id={`rule-filter-field-${i}`}
                value={filter.fieldName}
                spellCheck={false}
                onChange={(e) =>
                  set(
                    'filters',
                    settings.filters.map((f, j) => (j === i ? { ...f, fieldName: e.target.value } : f)),
                  )
                }
              />
            </div>
            <TagsInput
              id={`rule-filter-values-${i}`}
              label={`Filter values ${i + 1}`}
              value={filter.values}
              splitChars={[',']}
              acceptValueOnBlur
              onChange={(values) =>
                set(
                  'filters',
                  settings.filters.map((f, j) => (j === i ? { ...f, values } : f)),
                )
              }
            />
            <button
              type="button"
              onClick={() =>
                set(
                  'filters',
                  settings.filters.filter((_f, j) => j !== i),
                )
              }
            >
              Remove filter {i + 1}
            </button>
          </div>
        ))}
        <div>
          <button
            type="button"
            onClick={() => set('filters', [...settings.filters, { fieldName: '', values: [] }])}
          >
            Add a filter
          </button>
        </div>
        {messageOf('conditions.fieldValues') && (
          <p className="field-error">{messageOf('conditions.fieldValues')}</p>
        )}
      </fieldset>
      {tags(
        'segments',
        'segments',
        'Segments',
        'Fires only for shoppers in one of these segments (for example members); empty: every shopper.',
      )}
      {tags(
        'queryProfiles',
        'conditions.queryProfiles',
        'Query profiles',
        'Fires only for searches through one of these query profiles; empty: through any.',
      )}
      {schedule}
      <div className="field">
        <label htmlFor="rule-precedence">Precedence</label>
        <input
          id="rule-precedence"
          inputMode="numeric"
          value={settings.precedence}
          onChange={(e) => set('precedence', e.target.value)}
          aria-invalid={messageOf('precedence') !== undefined}
          aria-describedby="rule-precedence-hint rule-precedence-error"
        />
        <p className="hint" id="rule-precedence-hint">
          When two rules disagree (two pins on one place, two redirects), the higher number wins.
        </p>
        {messageOf('precedence') && (
          <span className="field-error" id="rule-precedence-error">
            {messageOf('precedence')}
          </span>
        )}
      </div>
      {tags('tags', 'tags', 'Tags', 'Words to find the rule by in the list (for example autumn, campaign).')}
      {tags(
        'groups',
        'groups',
        'Rule groups',
        'Groups this rule belongs to, to find and manage related rules together.',
      )}
    </>
  );
}
