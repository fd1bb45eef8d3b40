// The account counter of `attempt_window`: one user name's failures from any address, the
// checks under way and when the next may start (account-throttle.ts decides).
import type { Kysely } from 'kysely';
import { type AttemptWindowRow, ended, startedCheckCounts } from '../http/attempt-window-repository.js';
import type { Database } from '../storage/schema.js';

export const ACCOUNT_COUNTER = 'admin-account';

export interface AccountWindowRow extends AttemptWindowRow {
  retry_at: string | null;
}

/** The delays of an account beyond its free failures: the ISO time to wait for after each count. */
export interface Delays {
  /** Failures that wait for nothing. */
  free: number;
  /** The time the next check may start after `free + i + 1` failures, for i = 0, 1, …; the last holds beyond. */
  after: string[];
}

/**
 * Starts a check of the account when its failures and the checks under way leave room under
 * `free`, or its delay has passed; answers whether it started. The window (forgotten a day
 * after its last check) starts again when ended. A check that takes the last free place, or
 * one beyond, holds the turn until `holdUntil` (the next gets it then, should this one never
 * end): no check starts before its failure has set the delay. One conditional upsert, so
 * parallel starts from any node never pass together. A check whose node died stays counted
 * as under way until the window is forgotten; past the free ones, the hold still lets the
 * next check start.
 */
export async function startAccountCheck(
  db: Kysely<Database>,
  username: string,
  now: Date,
  forgetAt: Date,
  holdUntil: Date,
  free: number,
): Promise<boolean> {
  const nowText = now.toISOString();
  const row = await db
    .insertInto('attempt_window')
    .values({
      counter: ACCOUNT_COUNTER,
      client: username,
      failures: 0,
      pending: 1,
      window_ends_at: forgetAt.toISOString(),
      retry_at: free <= 1 ? holdUntil.toISOString() : nowText,
    })
    .onConflict((oc) =>
      oc
        .columns(['counter', 'client'])
        .doUpdateSet((eb) => ({
          ...startedCheckCounts(eb, nowText),
          retry_at: eb
            .case()
            .when(ended(eb, nowText))
            .then(nowText)
            .when(eb(eb('attempt_window.failures', '+', eb.ref('attempt_window.pending')), '>=', free - 1))
            .then(holdUntil.toISOString())
            .else(eb.ref('attempt_window.retry_at'))
            .end(),
          window_ends_at: eb.ref('excluded.window_ends_at'),
        }))
        .where((eb) =>
          eb.or([
            ended(eb, nowText),
            eb(eb('attempt_window.failures', '+', eb.ref('attempt_window.pending')), '<', free),
            eb('attempt_window.retry_at', '<=', nowText),
          ]),
        ),
    )
    .returning('failures')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Ends a check of the account: a failure counts and sets when the next check may start
 * (`delays`), a success clears the failures, anything else only ends the check.
 */
export async function endAccountCheck(
  db: Kysely<Database>,
  username: string,
  outcome: 'failed' | 'succeeded' | 'released',
  now: Date,
  forgetAt: Date,
  delays: Delays,
): Promise<void> {
  const nowText = now.toISOString();
  await db
    .updateTable('attempt_window')
    .set((eb) => {
      const pending = eb
        .case()
        .when('pending', '>', 0)
        .then(eb('pending', '-', 1))
        .else(0)
        .end();
      if (outcome === 'released') return { pending };
      if (outcome === 'succeeded') return { pending, failures: 0, retry_at: nowText };
      // SET reads the row as it was: `failures` is the count before this failure.
      let retryAt = eb
        .case()
        .when('failures', '<', delays.free - 1)
        .then(eb.ref('retry_at'));
      delays.after.slice(0, -1).forEach((at, i) => {
        retryAt = retryAt.when('failures', '=', delays.free - 1 + i).then(at);
      });
      return {
        pending,
        failures: eb('failures', '+', 1),
        retry_at: retryAt.else(delays.after.at(-1) ?? nowText).end(),
        window_ends_at: forgetAt.toISOString(),
      };
    })
    .where('counter', '=', ACCOUNT_COUNTER)
    .where('client', '=', username)
    .execute();
}

/** The account's window that has not ended yet, if any. */
export async function accountWindow(
  db: Kysely<Database>,
  username: string,
  now: Date,
): Promise<AccountWindowRow | undefined> {
  return db
    .selectFrom('attempt_window')
    .select(['failures', 'pending', 'window_ends_at', 'retry_at'])
    .where('counter', '=', ACCOUNT_COUNTER)
    .where('client', '=', username)
    .where('window_ends_at', '>', now.toISOString())
    .executeTakeFirst();
}
