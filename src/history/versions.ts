// Earlier versions of a studio's rules and rewrites, as the history recorded them: the events
// of one object (also after it was removed), and the object an event recorded, checked to be
// that object of that studio. The areas restore the recorded content themselves.
import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../http/errors.js';
import type { Page } from '../listing/page.js';
import type { Database } from '../storage/schema.js';
import { studioCreatedAt } from '../studios/service.js';
import type { HistoryEvent } from './schemas.js';
import { type ChangeEvent, latestRecordOf, listHistory } from './service.js';

/** What the history records of a studio's rule or rewrite: the stored object with both contents. */
export interface StudioObjectRecord {
  id: string;
  studioId: string;
  staging: object;
}

/** Which object of which studio: `kind` as the history names it (`rule`, `rewrite`). */
export interface StudioObject {
  studioId: string;
  kind: string;
  id: string;
}

/** When the studio was created: the history before belongs to an earlier studio of its id. */
export async function studioSince(db: Kysely<Database>, studioId: string): Promise<Date> {
  const since = await studioCreatedAt(db, studioId);
  if (!since) throw new NotFoundError(`no studio ${studioId}`);
  return since;
}

/**
 * The object's events, newest first. `stored` says the object is the studio's now; one that
 * is not stored is the studio's when the newest event recording it says so (a removed one).
 */
export async function studioObjectHistory(
  db: Kysely<Database>,
  object: StudioObject,
  stored: boolean,
  paging: { page: number; size: number },
): Promise<Page<HistoryEvent>> {
  const since = await studioSince(db, object.studioId);
  const name = `${object.kind}:${object.id}`;
  if (!stored) {
    const latest = await latestRecordOf(db, name, since);
    if (!latest || recordIn(latest, object) === undefined) {
      throw new NotFoundError(`no ${object.kind} ${object.id}`);
    }
  }
  return listHistory(db, { object: name, from: since.toISOString(), ...paging });
}

/**
 * The object an event recorded, when the event is one of this object in this studio since
 * `since`: as the event left it, or as it was when the event removed it. Another object's or
 * studio's event is not found (as if it did not exist); one of this object that recorded no
 * content (a client's own event) is a conflict.
 */
export function versionIn<Record extends StudioObjectRecord>(
  event: HistoryEvent,
  object: StudioObject,
  since: Date,
): Record {
  const notFound = new NotFoundError(`no history event ${event.id} of ${object.kind} ${object.id}`);
  if (event.object !== `${object.kind}:${object.id}` || Date.parse(event.at) < since.getTime())
    throw notFound;
  if (event.after === undefined && event.before === undefined) {
    throw new ConflictError(
      `history event ${event.id} (${event.action}) records no content of ${object.kind} ${object.id} to restore`,
    );
  }
  const record = recordIn<Record>(event, object);
  if (record === undefined) throw notFound;
  return record;
}

/** The object an event recorded (after, else before), when it is this studio's object of this id. */
function recordIn<Record extends StudioObjectRecord>(
  event: HistoryEvent,
  object: StudioObject,
): Record | undefined {
  const record = (event.after ?? event.before) as Partial<StudioObjectRecord> | null | undefined;
  if (typeof record !== 'object' || record === null) return undefined;
  if (record.id !== object.id || record.studioId !== object.studioId) return undefined;
  if (typeof record.staging !== 'object' || record.staging === null) return undefined;
  return record as Record;
}

/**
 * How a restore is recorded: its summary names the object (`rule P1`, `query rewrite r1`) and
 * the event restored, and says when the object was created again; the event's id is its data.
 */
export function describeRestore<Change extends { recreated: boolean }>(
  object: string,
  historyId: string,
): (event: ChangeEvent, change: Change) => ChangeEvent {
  return (event, change) => ({
    ...event,
    summary: `restore ${object} to history event ${historyId}${change.recreated ? ' (recreated)' : ''}`,
    data: { historyId },
  });
}
