// The fields of each type of rule and rewrite as form inputs (not raw JSON): what each type
// has, how its values read as text in the inputs, and back into the API's shape.
import type { ErrorBody } from '../../api/client';
import { plainMessage, plainMessageFor } from '../../words';

type Input = 'text' | 'lines' | 'number' | 'optional-number' | 'optional-text' | 'pins' | 'rows';

/** An input of a row (a boost, a parameter, a key and value): a text, a number or a choice. */
interface Column {
  name: string;
  label: string;
  input: 'text' | 'number' | 'choice';
  /** A choice's options: [value, words]. */
  options?: [string, string][];
  initial?: string;
  /** The row's column and value with which this input is not used (a removed parameter's value). */
  unusedWhen?: [string, string];
}

interface FieldSpec {
  name: string;
  label: string;
  input: Input;
  /** What the field does, in a line under it. */
  hint?: string;
  /** The value a new rule starts with. */
  initial?: string;
  /** A list of rows: each row's inputs, and what a row is called ("Boost 2", "Add a boost"). */
  columns?: Column[];
  row?: string;
}

const FIELD_NAME: FieldSpec = { name: 'fieldName', label: 'Field name', input: 'text', initial: 'id' };
const VALUES: FieldSpec = { name: 'fieldValues', label: 'Values (one a line)', input: 'lines' };
const BOOST: FieldSpec = { name: 'boost', label: 'Boost', input: 'number', initial: '10' };

/** What the fields of a type are about, as the legend over them (the new kinds'). */
export const KIND_LEGENDS: Record<string, string> = {
  filterList: 'Only show products with…',
  boostAttributes: 'Boost or bury by an attribute',
  setParams: 'Solr parameters (for experts)',
  responseValue: "Data for the shop's page",
  setFacetList: 'Facet order',
};

/** The fields of each type, in the order the editor shows them. */
export const KIND_FIELDS: Record<string, FieldSpec[]> = {
  blockList: [FIELD_NAME, VALUES],
  boostList: [FIELD_NAME, VALUES, BOOST],
  buryList: [FIELD_NAME, VALUES, BOOST],
  pinned: [
    FIELD_NAME,
    { name: 'pinnedValues', label: 'Pinned values (value=position, one a line)', input: 'pins' },
  ],
  redirect: [{ name: 'url', label: 'Redirect URL', input: 'text', initial: 'https://' }],
  banner: [
    { name: 'bannerUrl', label: 'Banner URL', input: 'text', initial: 'https://' },
    { name: 'zone', label: 'Zone', input: 'text', initial: 'top' },
  ],
  filterList: [
    {
      name: 'fieldName',
      label: 'Attribute',
      input: 'text',
      initial: 'category',
      hint: 'The product field to look at, such as category or brand.',
    },
    {
      name: 'fieldValues',
      label: 'One of these values (one a line)',
      input: 'lines',
      hint: 'Only products with one of these values are shown; the others are left out.',
    },
  ],
  boostAttributes: [
    {
      name: 'boosts',
      label: 'Boosts and buries',
      input: 'rows',
      row: 'boost',
      hint: 'Each moves the products with an attribute’s value, or matching a filter such as price:[5 TO 15], up or down by how much you say.',
      columns: [
        {
          name: 'direction',
          label: 'Boost or bury',
          input: 'choice',
          options: [
            ['boost', 'Boost (move up)'],
            ['bury', 'Bury (move down)'],
          ],
          initial: 'boost',
        },
        { name: 'fieldName', label: 'Attribute', input: 'text' },
        { name: 'value', label: 'Value', input: 'text' },
        { name: 'query', label: 'Or a filter', input: 'text' },
        { name: 'weight', label: 'By how much', input: 'number', initial: '10' },
      ],
    },
  ],
  setParams: [
    {
      name: 'params',
      label: 'Parameters',
      input: 'rows',
      row: 'parameter',
      hint: 'Solr parameters set on the shopper’s search, such as rows = 48; some are kept by searchdeck.',
      columns: [
        { name: 'key', label: 'Parameter', input: 'text' },
        { name: 'value', label: 'Value', input: 'text', unusedWhen: ['policy', 'remove'] },
        {
          name: 'policy',
          label: 'How',
          input: 'choice',
          options: [
            ['replace', 'Replace the value'],
            ['append', 'Add to the values'],
            ['default', 'Only if not set'],
            ['remove', 'Remove the parameter'],
          ],
          initial: 'replace',
        },
      ],
    },
  ],
  responseValue: [
    {
      name: 'responseValues',
      label: 'Data',
      input: 'rows',
      row: 'value',
      hint: 'Names and values the shop’s page receives with the results (at most 1 KB); a value may be text or JSON, such as {"title": "Winter sale"}.',
      columns: [
        { name: 'key', label: 'Name', input: 'text' },
        { name: 'value', label: 'Value', input: 'text' },
      ],
    },
  ],
  setFacetList: [
    {
      name: 'facetFields',
      label: 'Facets, in this order (one a line)',
      input: 'lines',
      hint: 'The product fields the page offers to filter by, first to last, such as brand, then price.',
    },
  ],
  synonym: [
    { name: 'input', label: 'Input (empty: every term stands for the others)', input: 'optional-text' },
    { name: 'synonyms', label: 'Synonyms (one a line)', input: 'lines' },
  ],
  misspelling: [
    { name: 'misspelling', label: 'Misspelling', input: 'text' },
    { name: 'correction', label: 'Correction', input: 'text' },
  ],
  phrase: [
    { name: 'phrase', label: 'Phrase', input: 'text' },
    { name: 'boost', label: 'Boost (optional)', input: 'optional-number' },
  ],
  headTail: [
    { name: 'query', label: 'Query', input: 'text' },
    { name: 'head', label: 'Head', input: 'text' },
  ],
  removeWords: [{ name: 'words', label: 'Words to remove (one a line)', input: 'lines' }],
};

/** A row's inputs' texts, by column. */
export type RowTexts = Record<string, string>;
/** The inputs' texts: a text per field, rows for a list of rows. */
export type FieldTexts = Record<string, string | RowTexts[]>;

const linesOf = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** A number typed, or the text when it is not one (for the API to name). */
const numberOr = (text: string): number | string =>
  text === '' || Number.isNaN(Number(text)) ? text : Number(text);

/** A new row: each column's starting value. */
function newRow(spec: FieldSpec): RowTexts {
  return Object.fromEntries((spec.columns ?? []).map((c) => [c.name, c.initial ?? '']));
}

/**
 * A response value as typed: JSON when it reads as an object, a list or a quoted text, else the
 * text as it is (so `grid` and `48` stay texts).
 */
function responseValueOf(text: string): unknown {
  if (!/^[[{"]/.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A response value as its input shows it: a text as it is (quoted when it would read as JSON), else JSON. */
function responseValueText(value: unknown): string {
  if (typeof value === 'string') return /^[[{"]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** A stored list's entries as rows. */
function rowsOf(spec: FieldSpec, value: unknown): RowTexts[] {
  const entries = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
  return entries.map((entry) => {
    if (spec.name === 'boosts') {
      const weight = Number(entry.weight);
      return {
        direction: weight < 0 ? 'bury' : 'boost',
        fieldName: String(entry.fieldName ?? ''),
        value: String(entry.value ?? ''),
        query: String(entry.query ?? ''),
        weight: String(Math.abs(weight)),
      };
    }
    if (spec.name === 'responseValues')
      return { key: String(entry.key ?? ''), value: responseValueText(entry.value) };
    return Object.fromEntries(
      (spec.columns ?? []).map((c) => [
        c.name,
        entry[c.name] === undefined ? (c.initial ?? '') : String(entry[c.name]),
      ]),
    );
  });
}

/** Rows in the API's shape: empty rows left out, empty inputs not sent. */
function entriesOf(spec: FieldSpec, rows: RowTexts[]): Record<string, unknown>[] {
  const typed = (row: RowTexts) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v.trim()]));
  // Every row is sent, an empty one too: the API's messages name rows by their place.
  return rows.map(typed).map((row) => {
    const entry: Record<string, unknown> = {};
    if (spec.name === 'boosts') {
      for (const name of ['fieldName', 'value', 'query']) if (row[name]) entry[name] = row[name];
      const weight = numberOr(row.weight ?? '');
      entry.weight = typeof weight === 'number' && row.direction === 'bury' ? -weight : weight;
    } else if (spec.name === 'params') {
      entry.key = row.key;
      if (row.policy !== 'remove' && row.value !== '') entry.value = row.value;
      entry.policy = row.policy;
    } else if (spec.name === 'responseValues') {
      entry.key = row.key;
      entry.value = responseValueOf(row.value ?? '');
    } else Object.assign(entry, row);
    return entry;
  });
}

/** The inputs' texts of a type: from a stored rule's fields, or the type's starting values. */
export function textsOf(type: string, fields?: Record<string, unknown>): FieldTexts {
  return Object.fromEntries(
    (KIND_FIELDS[type] ?? []).map((spec): [string, string | RowTexts[]] => {
      if (spec.input === 'rows')
        return [spec.name, fields === undefined ? [newRow(spec)] : rowsOf(spec, fields[spec.name])];
      if (fields === undefined) return [spec.name, spec.initial ?? ''];
      const value = fields[spec.name];
      if (value === undefined || value === null) return [spec.name, ''];
      if (spec.input === 'pins')
        return [
          spec.name,
          (value as { value: string; position: number }[]).map((p) => `${p.value}=${p.position}`).join('\n'),
        ];
      if (Array.isArray(value)) return [spec.name, value.join('\n')];
      return [spec.name, String(value)];
    }),
  );
}

/** The type's fields in the API's shape; a number that is not one is sent as text, for the API to name. */
export function valuesOf(type: string, texts: FieldTexts): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const spec of KIND_FIELDS[type] ?? []) {
    const held = texts[spec.name] ?? '';
    if (spec.input === 'rows') {
      values[spec.name] = entriesOf(spec, Array.isArray(held) ? held : []);
      continue;
    }
    const text = (typeof held === 'string' ? held : '').trim();
    const number = numberOr(text);
    switch (spec.input) {
      case 'lines':
        values[spec.name] = linesOf(text);
        break;
      case 'pins':
        values[spec.name] = linesOf(text).map((line) => {
          const equals = line.lastIndexOf('=');
          const position = equals < 0 ? '' : line.slice(equals + 1).trim();
          return {
            value: equals < 0 ? line : line.slice(0, equals).trim(),
            position: numberOr(position),
          };
        });
        break;
      case 'number':
      case 'optional-number':
        if (text !== '') values[spec.name] = number;
        break;
      case 'optional-text':
        values[spec.name] = text === '' ? null : text;
        break;
      default:
        values[spec.name] = text;
    }
  }
  return values;
}

/** The API's message about exactly `field` (not a path inside it) in plain words, or undefined. */
function messageAt(error: ErrorBody | undefined, field: string, label: string): string | undefined {
  const found = error?.errors?.find((e) => e.field === field);
  return found && plainMessage(found.field, found.message, label);
}

/** The type's own fields, each with a line saying what it does and the API's message beside it. */
export function KindFields({
  type,
  texts,
  onChange,
  error,
}: {
  type: string;
  texts: FieldTexts;
  onChange: (texts: FieldTexts) => void;
  error: ErrorBody | undefined;
}) {
  const fields = (KIND_FIELDS[type] ?? []).map((spec) => {
    const change = (value: string | RowTexts[]) => onChange({ ...texts, [spec.name]: value });
    if (spec.input === 'rows') {
      const held = texts[spec.name];
      return (
        <Rows
          key={`${type}-${spec.name}`}
          spec={spec}
          rows={Array.isArray(held) ? held : []}
          onChange={change}
          error={error}
        />
      );
    }
    const id = `kind-${spec.name}`;
    const message = plainMessageFor(error, spec.name, spec.label);
    const text = texts[spec.name];
    const common = {
      id,
      value: typeof text === 'string' ? text : '',
      'aria-invalid': message !== undefined,
      'aria-describedby': `${spec.hint ? `${spec.name}-hint ` : ''}${spec.name}-error`,
      spellCheck: false,
    };
    return (
      <div className="field" key={`${type}-${spec.name}`}>
        <label htmlFor={id}>{spec.label}</label>
        {spec.input === 'lines' || spec.input === 'pins' ? (
          <textarea rows={4} {...common} onChange={(e) => change(e.target.value)} />
        ) : (
          <input
            inputMode={spec.input.endsWith('number') ? 'decimal' : undefined}
            {...common}
            onChange={(e) => change(e.target.value)}
          />
        )}
        {spec.hint && (
          <p className="hint" id={`${spec.name}-hint`}>
            {spec.hint}
          </p>
        )}
        {message && (
          <span className="field-error" id={`${spec.name}-error`}>
            {message}
          </span>
        )}
      </div>
    );
  });
  const legend = KIND_LEGENDS[type];
  return legend ? (
    <fieldset className="choice kind-fields">
      <legend>{legend}</legend>
      {fields}
    </fieldset>
  ) : (
    fields
  );
}

/** A list of rows (boosts, parameters, keys and values): each row's inputs, remove and add. */
function Rows({
  spec,
  rows,
  onChange,
  error,
}: {
  spec: FieldSpec;
  rows: RowTexts[];
  onChange: (rows: RowTexts[]) => void;
  error: ErrorBody | undefined;
}) {
  const columns = spec.columns ?? [];
  const row = spec.row ?? 'row';
  const listMessage = messageAt(error, spec.name, spec.label);
  return (
    <fieldset className="choice" aria-describedby={spec.hint ? `${spec.name}-hint` : undefined}>
      <legend>{spec.label}</legend>
      {spec.hint && (
        <p className="hint" id={`${spec.name}-hint`}>
          {spec.hint}
        </p>
      )}
      {rows.map((texts, i) => {
        const at = `${spec.name}[${i}]`;
        const rowMessage = messageAt(error, at, `${row} ${i + 1}`);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own
          <div className="kind-row" key={i}>
            {columns.map((column) => {
              const id = `kind-${spec.name}-${i}-${column.name}`;
              const label = `${column.label} ${i + 1}`;
              const message = plainMessageFor(error, `${at}.${column.name}`, column.label);
              const change = (value: string) =>
                onChange(rows.map((r, j) => (j === i ? { ...r, [column.name]: value } : r)));
              const common = {
                id,
                value: texts[column.name] ?? '',
                'aria-invalid': message !== undefined || rowMessage !== undefined,
                'aria-describedby': `${id}-error ${at}-error`,
                disabled:
                  column.unusedWhen !== undefined && texts[column.unusedWhen[0]] === column.unusedWhen[1],
              };
              return (
                <div className="field" key={column.name}>
                  <label htmlFor={id}>{label}</label>
                  {column.input === 'choice' ? (
                    <select {...common} onChange={(e) => change(e.target.value)}>
                      {(column.options ?? []).map(([value, words]) => (
                        <option key={value} value={value}>
                          {words}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <input
                      inputMode={column.input === 'number' ? 'decimal' : undefined}
                      spellCheck={false}
                      {...common}
                      onChange={(e) => change(e.target.value)}
                    />
                  )}
                  {message && (
                    <span className="field-error" id={`${id}-error`}>
                      {message}
                    </span>
                  )}
                </div>
              );
            })}
            <button type="button" onClick={() => onChange(rows.filter((_r, j) => j !== i))}>
              Remove {row} {i + 1}
            </button>
            {rowMessage && (
              <span className="field-error kind-row-error" id={`${at}-error`}>
                {rowMessage}
              </span>
            )}
          </div>
        );
      })}
      <div>
        <button type="button" onClick={() => onChange([...rows, newRow(spec)])}>
          Add a {row}
        </button>
      </div>
      {listMessage && (
        <span className="field-error" id={`${spec.name}-error`}>
          {listMessage}
        </span>
      )}
    </fieldset>
  );
}

/** The names of the type's own fields, to tell their messages from the others. */
export function kindFieldNames(type: string): string[] {
  return (KIND_FIELDS[type] ?? []).map((spec) => spec.name);
}
