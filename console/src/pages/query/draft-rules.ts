// "Pin here", "Block" and "Boost" on a product card: each puts the product in a DRAFT rule of
// the profile's studio for the query, through the Rules API (the session's `/studios/{id}/…`
// paths). A draft rule of that kind made for exactly this query (and nothing narrower) is
// extended; otherwise a new one is created. Nothing is published: the staging column shows
// the effect, the live one does not change until someone publishes the rule.
import { api, dataOrThrow } from '../../api/client';
import type { components } from '../../api/schema';

type Rule = components['schemas']['Rule'];
export type CardAction = 'pin' | 'block' | 'boost';

const TYPES = { pin: 'pinned', block: 'blockList', boost: 'boostList' } as const;
const NAMES = { pin: 'Pinned', block: 'Blocked', boost: 'Boosted' } as const;
/** A rule's query condition is at most 200 characters (the Rules API's limit). */
export const MAX_RULE_QUERY = 200;

/** The query as rule conditions compare it: case, accents and spacing do not count. */
export function queryKey(query: string): string {
  return query
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .normalize('NFC')
    .trim()
    .replace(/\s+/g, ' ');
}

/** A draft of this kind that acts on this query alone, for every shopper, on the `id` field. */
function extendable(rule: Rule, action: CardAction, query: string): boolean {
  const { conditions } = rule;
  return (
    rule.publishState === 'DRAFT' &&
    rule.type === TYPES[action] &&
    !rule.deleted &&
    (rule.fieldName ?? 'id') === 'id' &&
    rule.segments.length === 0 &&
    conditions.queries.length === 1 &&
    queryKey(conditions.queries[0] ?? '') === queryKey(query) &&
    (conditions.queryMatch ?? 'is') === 'is' &&
    conditions.fieldValues.length === 0 &&
    conditions.queryProfiles.length === 0 &&
    conditions.effectiveStart === null &&
    conditions.effectiveEnd === null
  );
}

async function draftFor(studio: string, action: CardAction, query: string): Promise<Rule | undefined> {
  // The listing's word search narrows to rules whose words include the query's (a query of no
  // letter or digit has none to search by); the exact check is ours.
  const words = /[\p{L}\p{N}]/u.test(query);
  const page = await dataOrThrow(
    api.GET('/studios/{studioId}/em-rules', {
      params: {
        path: { studioId: studio },
        query: {
          ...(words ? { searchQuery: query } : {}),
          types: [TYPES[action]],
          publishState: 'DRAFT',
          sort: ['lastModified', 'desc'],
          size: 100,
        },
      },
    }),
  );
  return page.content.find((rule) => extendable(rule, action, query));
}

/** The rule's staging content as the Rules API takes it back. */
function bodyOf(rule: Rule) {
  return {
    type: rule.type,
    name: rule.name,
    description: rule.description,
    tags: rule.tags,
    groups: rule.groups,
    segments: rule.segments,
    precedence: rule.precedence,
    conditions: rule.conditions,
    ...(rule.fieldName === undefined ? {} : { fieldName: rule.fieldName }),
    ...(rule.fieldValues === undefined ? {} : { fieldValues: rule.fieldValues }),
    ...(rule.boost === undefined ? {} : { boost: rule.boost }),
    ...(rule.pinnedValues === undefined ? {} : { pinnedValues: rule.pinnedValues }),
  };
}

/** The product first, the rule's other pins one place down each, in their order. */
function pinnedFirst(pins: { value: string; position: number }[], id: string) {
  const others = pins.filter((pin) => pin.value !== id);
  return [{ value: id, position: 1 }, ...others.map((pin) => ({ ...pin, position: pin.position + 1 }))];
}

export interface DraftChange {
  rule: { id: string; name: string };
  created: boolean;
  /** The product was there already (pinned first, blocked or boosted by that draft). */
  unchanged: boolean;
}

/**
 * Puts the product `id` in a draft rule of `studio` for `query` (the query as the rewrites
 * leave it, which is what rules compare): first among the pins, blocked, or boosted.
 */
export async function applyToDraft(
  studio: string,
  action: CardAction,
  query: string,
  id: string,
  profile: string,
): Promise<DraftChange> {
  const path = { studioId: studio };
  const draft = await draftFor(studio, action, query);
  if (draft === undefined) {
    const kind =
      action === 'pin'
        ? { type: 'pinned', fieldName: 'id', pinnedValues: [{ value: id, position: 1 }] }
        : {
            type: TYPES[action],
            fieldName: 'id',
            fieldValues: [id],
            ...(action === 'boost' ? { boost: 10 } : {}),
          };
    const created = await dataOrThrow(
      api.POST('/studios/{studioId}/em-rules', {
        params: { path },
        body: {
          name: `${NAMES[action]} for: ${query.slice(0, 150)}`,
          description: `Made from the query preview of profile ${profile}.`,
          conditions: { queries: [query] },
          ...kind,
        },
      }),
    );
    return { rule: { id: created.id, name: created.name }, created: true, unchanged: false };
  }
  const body = bodyOf(draft);
  let unchanged: boolean;
  if (action === 'pin') {
    const pins = draft.pinnedValues ?? [];
    unchanged = pins.some((pin) => pin.value === id && pin.position === 1);
    body.pinnedValues = pinnedFirst(pins, id);
  } else {
    const values = draft.fieldValues ?? [];
    unchanged = values.includes(id);
    body.fieldValues = unchanged ? values : [...values, id];
  }
  if (!unchanged) {
    await dataOrThrow(
      api.PUT('/studios/{studioId}/em-rules/{id}', { params: { path: { ...path, id: draft.id } }, body }),
    );
  }
  return { rule: { id: draft.id, name: draft.name }, created: false, unchanged };
}
