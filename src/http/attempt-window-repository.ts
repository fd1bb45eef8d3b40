import type { ExpressionBuilder, Kysely } from 'kysely';
import { PreparedQueries } from '../storage/prepared-query.js';
import type { Database } from '../storage/schema.js';
import type { AttemptWindowTable } from './tables.js';

export interface AttemptWindowRow {
  failures: number;
  pending: number;
  window_ends_at: string;
}

export type Row = ExpressionBuilder<
  Database & { excluded: AttemptWindowTable },
  'attempt_window' | 'excluded'
>;

/** Whether the stored window has ended at `now` (it then starts again with this attempt). */
export const ended = (eb: Row, now: string) => eb('attempt_window.window_ends_at', '<=', now);

/** The counts of a window once one more check has started: afresh when it had ended. */
export const startedCheckCounts = (eb: Row, now: string) => ({
  failures: eb.case().when(ended(eb, now)).then(0).else(eb.ref('attempt_window.failures')).end(),
  pending: eb
    .case()
    .when(ended(eb, now))
    .then(1)
    .else(eb('attempt_window.pending', '+', 1))
    .end(),
});

/** The window's end: the stored one, or the new one when the stored one has ended. */
const windowEnd = (eb: Row, now: string) =>
  eb
    .case()
    .when(ended(eb, now))
    .then(eb.ref('excluded.window_ends_at'))
    .else(eb.ref('attempt_window.window_ends_at'))
    .end();

/**
 * Counts one failure. A single upsert, so parallel failures from any node each add exactly
 * one (PostgreSQL locks the row for the update; SQLite has a single writer).
 */
export async function countFailure(
  db: Kysely<Database>,
  counter: string,
  client: string,
  now: Date,
  windowEndsAt: Date,
): Promise<void> {
  const nowText = now.toISOString();
  await db
    .insertInto('attempt_window')
    .values({ counter, client, failures: 1, pending: 0, window_ends_at: windowEndsAt.toISOString() })
    .onConflict((oc) =>
      oc.columns(['counter', 'client']).doUpdateSet((eb) => ({
        failures: eb
          .case()
          .when(ended(eb, nowText))
          .then(1)
          .else(eb('attempt_window.failures', '+', 1))
          .end(),
        pending: eb.case().when(ended(eb, nowText)).then(0).else(eb.ref('attempt_window.pending')).end(),
        window_ends_at: windowEnd(eb, nowText),
      })),
    )
    .execute();
}

/**
 * Starts a check of the client's credentials when its failures and the checks under way
 * leave room under `max`; answers the end of the window it counts in, or undefined when
 * there is no room. One conditional upsert, so parallel starts never pass `max` together.
 */
export async function startCheck(
  db: Kysely<Database>,
  counter: string,
  client: string,
  now: Date,
  windowEndsAt: Date,
  max: number,
): Promise<string | undefined> {
  const nowText = now.toISOString();
  const row = await db
    .insertInto('attempt_window')
    .values({ counter, client, failures: 0, pending: 1, window_ends_at: windowEndsAt.toISOString() })
    .onConflict((oc) =>
      oc
        .columns(['counter', 'client'])
        .doUpdateSet((eb) => ({
          ...startedCheckCounts(eb, nowText),
          window_ends_at: windowEnd(eb, nowText),
        }))
        .where((eb) =>
          eb.or([
            ended(eb, nowText),
            eb(eb('attempt_window.failures', '+', eb.ref('attempt_window.pending')), '<', max),
          ]),
        ),
    )
    .returning('window_ends_at')
    .executeTakeFirst();
  return row?.window_ends_at;
}

/**
 * Ends a check started in the window ending at `windowEndsAt`, counting it as a failure
 * when it failed. False when that window is gone (ended and started again, or swept).
 */
export async function endCheck(
  db: Kysely<Database>,
  counter: string,
  client: string,
  windowEndsAt: string,
  failed: boolean,
): Promise<boolean> {
  const result = await db
    .updateTable('attempt_window')
    .set((eb) => ({
      pending: eb('pending', '-', 1),
      failures: eb('failures', '+', failed ? 1 : 0),
    }))
    .where('counter', '=', counter)
    .where('client', '=', client)
    .where('window_ends_at', '=', windowEndsAt)
    .where('pending', '>', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The client's window that has not ended yet, if any. */
export async function currentWindow(
  db: Kysely<Database>,
  counter: string,
  client: string,
  now: Date,
): Promise<AttemptWindowRow | undefined> {
  const rows = await windows.execute(
    db,
    'current',
    (db, parameter) =>
      db
        .selectFrom('attempt_window')
        .select(['failures', 'pending', 'window_ends_at'])
        .where('counter', '=', parameter(0))
        .where('client', '=', parameter(1))
        .where('window_ends_at', '>', parameter(2)),
    [counter, client, now.toISOString()],
  );
  return rows[0];
}

// Asked before every password check, so on every request of the Administrative API.
const windows = new PreparedQueries<AttemptWindowRow>('attempt_window');

/** Deletes the windows that ended at or before `now`. */
export async function dropEndedWindows(db: Kysely<Database>, now: Date): Promise<void> {
  await db.deleteFrom('attempt_window').where('window_ends_at', '<=', now.toISOString()).execute();
}
