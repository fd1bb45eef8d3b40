// Writing logged searches: the hot path of ingestion, thousands of rows per request.
import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { TimeSlice } from '../storage/time-slice.js';

export interface CountDelta {
  key: string;
  hour: string;
  count: number;
}
export interface FormDelta {
  key: string;
  form: string;
  count: number;
  lastHour: string;
}

// Statement sizes: a batch is cut into full statements of the largest size and its rest into
// powers of two, so that only these few texts ever reach the driver (SQLite keeps each one
// prepared) and none is built anew per request. 512 rows stay far below both engines' limits.
const STATEMENT_ROWS = [512, 256, 128, 64, 32, 16, 8, 4, 2, 1];

function statementSizes(rows: number): number[] {
  const sizes: number[] = [];
  let left = rows;
  for (const size of STATEMENT_ROWS) {
    for (; left >= size; left -= size) sizes.push(size);
  }
  return sizes;
}

// One order for every writer: code unit order of the key, then of the hour or form.
const byKeyAndHour = (a: CountDelta, b: CountDelta) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0;
const byKeyAndForm = (a: FormDelta, b: FormDelta) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.form < b.form ? -1 : a.form > b.form ? 1 : 0;

/**
 * Adds searches to their hourly buckets and to the tallies of their forms (passing `slice`
 * between statements). Rows are written sorted, buckets before forms, so that concurrent
 * batches of overlapping keys lock their rows in the same order and never deadlock.
 */
export async function addSearches(
  db: Kysely<Database>,
  id: string,
  counts: readonly CountDelta[],
  forms: readonly FormDelta[],
  slice?: TimeSlice,
): Promise<void> {
  const dialect = upsertCounts(db, 1).compile().sql;
  const sortedCounts = [...counts].sort(byKeyAndHour);
  let at = 0;
  for (const size of statementSizes(sortedCounts.length)) {
    await slice?.pass();
    const parameters: unknown[] = [];
    for (const c of sortedCounts.slice(at, at + size)) parameters.push(id, c.key, c.hour, c.count);
    await db.executeQuery(
      CompiledQuery.raw(
        statementText(dialect, 'counts', size, () => upsertCounts(db, size)),
        parameters,
      ),
    );
    at += size;
  }
  const sortedForms = [...forms].sort(byKeyAndForm);
  at = 0;
  for (const size of statementSizes(sortedForms.length)) {
    await slice?.pass();
    const parameters: unknown[] = [];
    for (const f of sortedForms.slice(at, at + size)) parameters.push(id, f.key, f.form, f.count, f.lastHour);
    await db.executeQuery(
      CompiledQuery.raw(
        statementText(dialect, 'forms', size, () => upsertForms(db, size)),
        parameters,
      ),
    );
    at += size;
  }
}

// Building a statement of hundreds of rows through Kysely costs more than the database takes
// to run it, so each size is built once per engine and its text kept; the values are bound
// anew each time, in the order the builder lays them out (row by row, columns as listed).
// Keyed by a one-row statement's text, which spells the engine's dialect (one process may
// hold both engines); a memo of pure text, not application state.
const texts = new Map<string, string>();

function statementText(
  dialect: string,
  table: string,
  rows: number,
  build: () => { compile(): { sql: string } },
) {
  const key = `${table}\u0000${rows}\u0000${dialect}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = build().compile().sql;
    texts.set(key, text);
  }
  return text;
}

function upsertCounts(db: Kysely<Database>, rows: number) {
  return db
    .insertInto('typeahead_search_count')
    .values(Array.from({ length: rows }, () => ({ instance_id: '', key: '', hour: '', count: 0 })))
    .onConflict((oc) =>
      oc.columns(['instance_id', 'key', 'hour']).doUpdateSet((eb) => ({
        count: eb('typeahead_search_count.count', '+', eb.ref('excluded.count')),
      })),
    );
}

function upsertForms(db: Kysely<Database>, rows: number) {
  return db
    .insertInto('typeahead_search_form')
    .values(
      Array.from({ length: rows }, () => ({ instance_id: '', key: '', form: '', count: 0, last_hour: '' })),
    )
    .onConflict((oc) =>
      oc.columns(['instance_id', 'key', 'form']).doUpdateSet((eb) => ({
        count: eb('typeahead_search_form.count', '+', eb.ref('excluded.count')),
        last_hour: sql<string>`case when ${eb.ref('excluded.last_hour')} > ${eb.ref('typeahead_search_form.last_hour')} then ${eb.ref('excluded.last_hour')} else ${eb.ref('typeahead_search_form.last_hour')} end`,
      })),
    );
}
