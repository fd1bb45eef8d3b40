import type { Kysely } from 'kysely';
import { recordChange } from '../history/service.js';
import { LimitExceededError, ValidationError } from '../http/errors.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { checkTerm } from '../text/term-key.js';
import {
  bumpVersion,
  countTerms,
  deleteAllTerms,
  deleteTermsByKey,
  insertTerms,
  selectInstance,
  selectTerms,
  selectTopTerms,
  type TermListName,
  type TermRow,
} from './repository.js';
import type { TermCountsType, Terms, TermsPatch, TermsPut } from './schemas.js';
import { instanceNotFound as notFound } from './service.js';
import type { TypeaheadParts } from './typeahead-parts.js';

/** Included plus excluded terms of one instance. */
export const MAX_CUSTOM_TERMS = 4000;

/** The curated and top-searched terms of an instance, with their counts. */
export async function getTerms(db: Kysely<Database>, id: string): Promise<Terms> {
  if (!(await selectInstance(db, id))) throw notFound(id);
  const [custom, top] = await Promise.all([selectTerms(db, id), selectTopTerms(db, id)]);
  const included = custom.filter((t) => t.list === 'included');
  const excluded = custom.filter((t) => t.list === 'excluded');
  const excludedKeys = new Set(excluded.map((t) => t.key));
  const served = new Set(
    [...included.map((t) => t.key), ...top.map((t) => t.key)].filter((key) => !excludedKeys.has(key)),
  );
  return {
    included: included.map((t) => t.term),
    excluded: excluded.map((t) => t.term),
    topSearched: top.map((t) => ({ term: t.term, count: t.count })),
    counts: { custom: custom.length, topSearched: top.length, served: served.size },
  };
}

/** Replaces both curated lists at once. */
export async function putTerms(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  id: string,
  lists: TermsPut,
  now: Date,
  actor: string,
): Promise<Terms> {
  const rows = [
    ...checkedTerms(lists.included, 'included', 'included'),
    ...checkedTerms(lists.excluded, 'excluded', 'excluded'),
  ];
  assertWithinLimit(rows.length);
  await inTransaction(db, async (trx) => {
    if (!(await bumpVersion(trx, id, { updated_at: now.toISOString() }))) throw notFound(id);
    await typeahead.feed.announce(trx, id);
    const before = await selectTerms(trx, id);
    await deleteAllTerms(trx, id);
    await insertTerms(trx, id, rows);
    await recordChange(trx, termsEvent(actor, 'put-terms', id, termChanges(before, rows), now));
  });
  return termsServedNow(db, typeahead, id);
}

/** Adds and removes curated terms in one transaction: removals first, so a term may move lists. */
export async function patchTerms(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  id: string,
  change: TermsPatch,
  now: Date,
  actor: string,
): Promise<Terms> {
  const lists: TermListName[] = ['included', 'excluded'];
  const removals = lists.map((list) => ({
    list,
    keys: checkedTerms(change.remove?.[list] ?? [], list, `remove.${list}`).map((t) => t.key),
  }));
  const additions = lists.flatMap((list) => checkedTerms(change.add?.[list] ?? [], list, `add.${list}`));
  await inTransaction(db, async (trx) => {
    // The version bump locks the instance first, so concurrent changes count one after another.
    if (!(await bumpVersion(trx, id, { updated_at: now.toISOString() }))) throw notFound(id);
    await typeahead.feed.announce(trx, id);
    for (const { list, keys } of removals) await deleteTermsByKey(trx, id, list, keys);
    await insertTerms(trx, id, additions);
    // Throwing rolls the whole change back: a rejected change changes nothing.
    assertWithinLimit(await countTerms(trx, id));
    const asked = { added: change.add ?? {}, removed: change.remove ?? {} };
    await recordChange(trx, termsEvent(actor, 'patch-terms', id, asked, now));
  });
  return termsServedNow(db, typeahead, id);
}

/** The terms a replacement added and removed, per list: what the history keeps instead of whole lists. */
function termChanges(before: Array<{ list: string; key: string; term: string }>, after: typeof before) {
  const keyed = (rows: typeof before) => new Map(rows.map((row) => [`${row.list}\u0000${row.key}`, row]));
  const [old, next] = [keyed(before), keyed(after)];
  const changes = { added: {} as Record<string, string[]>, removed: {} as Record<string, string[]> };
  const note = (into: Record<string, string[]>, row: { list: string; term: string }) => {
    into[row.list] ??= [];
    into[row.list]!.push(row.term);
  };
  for (const [key, row] of next) if (!old.has(key)) note(changes.added, row);
  for (const [key, row] of old) if (!next.has(key)) note(changes.removed, row);
  return changes;
}

function termsEvent(
  actor: string,
  action: string,
  id: string,
  changes: { added: object; removed: object },
  at: Date,
) {
  const count = (lists: object) => Object.values(lists).reduce((n, terms: string[]) => n + terms.length, 0);
  return {
    actor,
    action,
    object: `typeahead:${id}`,
    summary: `typeahead instance ${id}: ${count(changes.added)} terms added, ${count(changes.removed)} removed`,
    after: changes,
    at,
  };
}

/** The terms after a change, which this node serves from now on. */
async function termsServedNow(db: Kysely<Database>, typeahead: TypeaheadParts, id: string): Promise<Terms> {
  const terms = await getTerms(db, id);
  await typeahead.feed.changed();
  return terms;
}

/** Recomputes an instance's top-searched set now and answers the new counts. */
export async function refreshTopSearchedNow(
  db: Kysely<Database>,
  typeahead: TypeaheadParts,
  id: string,
): Promise<TermCountsType> {
  await typeahead.topSearched.runNow(id);
  return (await getTerms(db, id)).counts;
}

/** Checks every term (naming the first bad ones) and keeps the first of each key (imports check theirs with it too). */
export function checkedTerms(terms: readonly string[], list: TermListName, field: string): TermRow[] {
  const rows = new Map<string, TermRow>();
  const errors = [];
  for (const [i, term] of terms.entries()) {
    const check = checkTerm(term);
    if (!check.valid) errors.push({ field: `${field}[${i}]`, message: `${field}[${i}] ${check.reason}` });
    else if (!rows.has(check.key)) rows.set(check.key, { list, key: check.key, term: check.term });
  }
  if (errors.length > 0) throw new ValidationError(errors.slice(0, 20));
  return [...rows.values()];
}

/** Refuses more custom terms than an instance may have. */
export function assertWithinLimit(count: number): void {
  if (count > MAX_CUSTOM_TERMS) {
    throw new LimitExceededError(
      `an instance has at most ${MAX_CUSTOM_TERMS} custom terms (included + excluded); this change would make ${count}`,
      { limit: MAX_CUSTOM_TERMS, count },
    );
  }
}
