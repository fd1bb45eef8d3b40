import { setImmediate } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { TimeSlice } from '../storage/time-slice.js';
import { inTransaction } from '../storage/transaction.js';
import { addSearches, type CountDelta, type FormDelta } from './search-log-repository.js';

/** The rows one request's searches add to one instance. */
export interface SearchRows {
  instanceId: string;
  counts: CountDelta[];
  forms: FormDelta[];
}

interface Waiting extends SearchRows {
  resolve(): void;
  reject(error: unknown): void;
}

// A group is cut off here, so that one transaction stays a few hundred milliseconds of work.
const MAX_GROUP_ROWS = 40_000;

/**
 * Writes the searches of concurrent requests in one transaction (group commit): while one
 * group is written, the batches that arrive wait and go together in the next one. A request
 * is answered once the group holding its rows has committed, so nothing is acknowledged that
 * is not stored; what a commit costs (on SQLite, a flush to disk that holds the event loop)
 * is paid once per group instead of once per request. A group that fails is written again
 * request by request, so that one request's failure (its instance deleted meanwhile) is its own.
 */
export class SearchLogWriter {
  #waiting: Waiting[] = [];
  #writing = false;

  constructor(private readonly db: Kysely<Database>) {}

  /** Adds the rows; settles when they are committed (or failed on their own). */
  write(rows: SearchRows): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ ...rows, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      // One turn of the event loop first: requests already received finish keying and
      // join the group, instead of each paying a commit of its own.
      await setImmediate();
      while (this.#waiting.length > 0) await this.#writeGroup();
    } finally {
      this.#writing = false;
    }
  }

  #nextGroup(): Waiting[] {
    let rows = 0;
    let taken = 0;
    while (taken < this.#waiting.length && (taken === 0 || rows < MAX_GROUP_ROWS)) {
      const next = this.#waiting[taken]!;
      rows += next.counts.length + next.forms.length;
      taken++;
    }
    return this.#waiting.splice(0, taken);
  }

  async #writeGroup(): Promise<void> {
    let group: Waiting[] | undefined;
    try {
      await inTransaction(this.db, async (trx) => {
        // Taken once the connection is ours (on SQLite there is one, and requests queue for
        // it): whatever arrived meanwhile joins. A retried transaction keeps its group.
        group ??= this.#nextGroup();
        await writeRows(trx, group);
      });
      for (const member of group!) member.resolve();
    } catch (error) {
      if (group === undefined) group = this.#nextGroup();
      if (group.length === 1) return group[0]!.reject(error);
      for (const member of group) {
        try {
          await writeTogether(this.db, [member]);
          member.resolve();
        } catch (own) {
          member.reject(own);
        }
      }
    }
  }
}

/**
 * One transaction for all the rows, instance by instance in id order and each instance's rows
 * merged: every writer then takes its row locks in one global order (instance, table, key).
 */
export async function writeTogether(db: Kysely<Database>, group: readonly SearchRows[]): Promise<void> {
  await inTransaction(db, (trx) => writeRows(trx, group));
}

async function writeRows(trx: Kysely<Database>, group: readonly SearchRows[]): Promise<void> {
  const byInstance = new Map<string, SearchRows[]>();
  for (const member of group) {
    const same = byInstance.get(member.instanceId);
    if (same) same.push(member);
    else byInstance.set(member.instanceId, [member]);
  }
  const slice = new TimeSlice();
  for (const id of [...byInstance.keys()].sort()) {
    const { counts, forms } = merged(byInstance.get(id)!);
    await addSearches(trx, id, counts, forms, slice);
  }
}

/** The rows of several requests to one instance as one set of deltas. */
function merged(members: readonly SearchRows[]): { counts: CountDelta[]; forms: FormDelta[] } {
  if (members.length === 1) return members[0]!;
  const counts = new Map<string, CountDelta>();
  const forms = new Map<string, FormDelta>();
  for (const member of members) {
    for (const c of member.counts) {
      const id = `${c.key}\u0000${c.hour}`;
      const known = counts.get(id);
      if (known) known.count += c.count;
      else counts.set(id, { ...c });
    }
    for (const f of member.forms) {
      const id = `${f.key}\u0000${f.form}`;
      const known = forms.get(id);
      if (!known) forms.set(id, { ...f });
      else {
        known.count += f.count;
        if (f.lastHour > known.lastHour) known.lastHour = f.lastHour;
      }
    }
  }
  return { counts: [...counts.values()], forms: [...forms.values()] };
}
