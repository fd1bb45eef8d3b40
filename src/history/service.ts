// The history of changes: what every area records in the transaction of each change, what
// clients add themselves, the listing, and the pruning of events past the retention.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError } from '../http/errors.js';
import { type Page, pageOf } from '../listing/page.js';
import type { Database } from '../storage/schema.js';
import {
  countEvents,
  deleteEventsBefore,
  type HistoryEventRow,
  insertEvent,
  selectEvent,
  selectEvents,
  selectLatestRecorded,
} from './repository.js';
import type { HistoryEvent, HistoryEventCreateType, HistoryQueryType } from './schemas.js';

/** One change as an area records it. */
export interface ChangeEvent {
  /** "admin", "user:<name>", "client:<name>" or "system". */
  actor: string;
  action: string;
  /** The object changed, as links name it: "rule:<id>", "typeahead:<id>", … */
  object: string;
  summary: string;
  before?: unknown;
  after?: unknown;
  /** What else the change needs said (a restore: the event whose content it brought back). */
  data?: unknown;
  /** When the change happened; now when not given. */
  at?: Date | undefined;
}

// Keys whose values are never recorded, at any depth: secrets, and what stands for them.
const SECRET_KEY = /password|secret|token|keytab|credential|hash/i;

/** The value without any member that could hold a secret (whatever the area passed). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, member]) => [key, withoutSecrets(member)]),
  );
}

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(withoutSecrets(value));
}

/**
 * Records one change. Call it with the transaction of the change: the event commits with
 * it, and a change that fails or rolls back leaves none.
 */
export async function recordChange(trx: Kysely<Database>, event: ChangeEvent): Promise<void> {
  await insertEvent(trx, {
    id: randomUUID(),
    at: (event.at ?? new Date()).toISOString(),
    actor: event.actor,
    action: event.action,
    object: event.object,
    summary: event.summary,
    before: json(event.before),
    after: json(event.after),
    data: json(event.data),
  });
}

/** A client's own event (`POST /api/history`). */
export async function addEvent(
  db: Kysely<Database>,
  actor: string,
  body: HistoryEventCreateType,
  now: Date,
): Promise<HistoryEvent> {
  const row: HistoryEventRow = {
    id: randomUUID(),
    at: now.toISOString(),
    actor,
    action: body.action,
    object: body.object,
    summary: body.summary,
    before: null,
    after: null,
    data: json(body.data),
  };
  await insertEvent(db, row);
  return toEvent(row);
}

function toEvent(row: HistoryEventRow): HistoryEvent {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    object: row.object,
    summary: row.summary,
    ...(row.before === null ? {} : { before: JSON.parse(row.before) }),
    ...(row.after === null ? {} : { after: JSON.parse(row.after) }),
    ...(row.data === null ? {} : { data: JSON.parse(row.data) }),
  };
}

/** Stored instants are ISO UTC with milliseconds; a bound given in another form is written so. */
function instant(field: 'from' | 'to', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new ValidationError([{ field, message: 'must be an ISO 8601 date-time' }], 'invalid-parameter');
  }
  return new Date(time).toISOString();
}

/** One page of the events matching the query, newest first. */
export async function listHistory(
  db: Kysely<Database>,
  query: HistoryQueryType,
): Promise<Page<HistoryEvent>> {
  const selection = {
    object: query.object,
    actor: query.actor,
    action: query.action,
    from: instant('from', query.from),
    to: instant('to', query.to),
  };
  if (selection.from !== undefined && selection.to !== undefined && selection.from > selection.to) {
    throw new ValidationError([{ field: 'to', message: 'to must not be before from' }], 'invalid-parameter');
  }
  const [rows, total] = await Promise.all([
    selectEvents(db, selection, { limit: query.size, offset: query.page * query.size }),
    countEvents(db, selection),
  ]);
  return pageOf(rows.map(toEvent), query.page, query.size, total);
}

export async function getEvent(db: Kysely<Database>, id: string): Promise<HistoryEvent> {
  const row = await selectEvent(db, id);
  if (!row) throw new NotFoundError(`no history event ${id}`);
  return toEvent(row);
}

/**
 * The newest event of `object` at or after `from` that recorded the object itself (as it
 * was, or became): what tells whose an object no longer stored was.
 */
export async function latestRecordOf(
  db: Kysely<Database>,
  object: string,
  from: Date,
): Promise<HistoryEvent | undefined> {
  const row = await selectLatestRecorded(db, { object, from: from.toISOString() });
  return row && toEvent(row);
}

const PRUNE_BATCH = 1000;

/** Deletes the events older than `retentionDays` before `now`, in batches; answers how many went. */
export async function pruneHistory(
  db: Kysely<Database>,
  retentionDays: number,
  now: Date,
  between: () => Promise<void> = async () => {},
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  let pruned = 0;
  for (;;) {
    const deleted = await deleteEventsBefore(db, cutoff, PRUNE_BATCH);
    pruned += deleted;
    if (deleted < PRUNE_BATCH) return pruned;
    await between();
  }
}
