// A studio deleted while a query profile or an experiment naming it is saved, on one node and
// on two nodes of one database: either the delete comes first and the save is refused as for
// an unknown studio, or the save comes first and the delete is refused naming it. Never both:
// that would leave a profile or experiment naming a studio that no longer exists.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { experimentsUsingStudio, getExperiment, writeExperiment } from '../../src/experiments/service.js';
import { ConflictError, NotFoundError, ValidationError } from '../../src/http/errors.js';
import { getProfile, profilesUsingStudio, writeProfile } from '../../src/query/profiles.js';
import type { Database } from '../../src/storage/schema.js';
import { createStudio, deleteStudio, studioExists } from '../../src/studios/service.js';
import { call } from '../helpers/api.js';
import { engines, skipReason } from '../helpers/app.js';
import { nodeSetups } from '../helpers/concurrency.js';

// Round n sends the delete n turns of the microtask queue after the save, so that the rounds
// meet the save at each of its steps: on SQLite, where statements run synchronously, only an
// offset within one turn of the event loop reaches the gap between a check and its write.
// Sent through HTTP, the two requests met at the same few points every time, on SQLite
// never in that gap; so the rounds call the services. Without the locks, 50 rounds broke the
// invariant 10 to 18 times on SQLite (offsets 20 to 37) and 39 to 48 times on PostgreSQL,
// whose gap is wide: SQLite's rounds reach past that window, PostgreSQL's need few. About
// 50 ms a round, most of it the studio's creation and the two writes.
const ROUNDS = { sqlite: 40, postgres: 12 } as const;

const dependants = { contents: [], users: [profilesUsingStudio, experimentsUsingStudio] };

interface User {
  kind: string;
  /** Saves the round's user, naming the round's studio. */
  save(db: Kysely<Database>, round: number): Promise<unknown>;
  /** The studio the round's user names, or undefined when it was not stored. */
  studioOf(db: Kysely<Database>, round: number): Promise<string | undefined>;
  /** How a refused delete names it. */
  name(round: number): string;
  /** The field a save naming a missing studio is refused on. */
  field: string;
}

const profile: User = {
  kind: 'a query profile',
  save: (db, round) =>
    writeProfile(
      db,
      'web',
      `p${round}`,
      { searchCluster: 'solr', collection: 'products', studio: `s${round}` },
      'put',
      new Date(),
    ),
  studioOf: (db, round) => getProfile(db, 'web', `p${round}`).then((p) => p.studio, absent),
  name: (round) => `query profile web/p${round}`,
  field: 'studio',
};

const experiment: User = {
  kind: 'an experiment',
  save: (db, round) =>
    writeExperiment(
      db,
      'web',
      `e${round}`,
      {
        variants: [
          { id: 'a', weight: 1 },
          { id: 'b', weight: 1, studio: `s${round}` },
        ],
      },
      'put',
      new Date(),
    ),
  studioOf: (db, round) =>
    getExperiment(db, 'web', `e${round}`, new Date()).then((e) => e.variants[1]!.studio, absent),
  name: (round) => `experiment web/e${round}`,
  field: 'variants[1].studio',
};

function absent(error: unknown): undefined {
  if (error instanceof NotFoundError) return undefined;
  throw error;
}

/** A call's outcome: 'done', or the error it threw. */
function settled(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => 'done',
    (error: unknown) => error,
  );
}

/** What is wrong with a round, or undefined when it ended one of the two allowed ways. */
function problemOf(
  user: User,
  round: number,
  deleted: unknown,
  saved: unknown,
  stays: boolean,
  named?: string,
) {
  const what = (outcome: unknown) => (outcome instanceof Error ? outcome.message : String(outcome));
  const seen = `delete: ${what(deleted)}; save: ${what(saved)}; studio ${stays ? 'stays' : 'gone'}; user names ${named}`;
  if (deleted === 'done') {
    const refused = saved instanceof ValidationError && saved.errors?.[0]?.field === user.field;
    return !stays && refused && named === undefined ? undefined : seen;
  }
  if (deleted instanceof ConflictError) {
    const users = deleted.details?.users;
    const fine = stays && saved === 'done' && named === `s${round}`;
    return fine && JSON.stringify(users) === JSON.stringify([user.name(round)]) ? undefined : seen;
  }
  return seen;
}

for (const engine of engines) {
  describe(`a studio deleted while something naming it is saved, on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    for (const [setup, nodesOf] of nodeSetups(engine)) {
      for (const user of [profile, experiment]) {
        test(`refuses either the delete, naming ${user.kind}, or the save, round after round (${setup})`, async (t) => {
          const nodes = await nodesOf(t);
          const cluster = { id: 'solr', connectString: '127.0.0.1:2181/solr' };
          assert.equal(
            (await call(nodes[0]!.app, 'PUT', '/api/apps/web/searchCluster/solr', cluster)).status,
            200,
          );
          const first = nodes[0]!.store.db;
          const problems: string[] = [];
          const won = { delete: 0, save: 0 };
          for (let round = 0; round < ROUNDS[engine]; round++) {
            await createStudio(first, { id: `s${round}`, name: 'Shop' }, new Date());
            // Each on its own node when there are two.
            const saving = settled(user.save(nodes[(round + 1) % nodes.length]!.store.db, round));
            let turns = round;
            while (turns-- > 0) await Promise.resolve();
            const deleting = settled(
              deleteStudio(nodes[round % nodes.length]!.store.db, `s${round}`, false, dependants, 'admin'),
            );
            const [saved, deleted] = await Promise.all([saving, deleting]);
            const stays = await studioExists(first, `s${round}`);
            const named = await user.studioOf(first, round);
            const problem = problemOf(user, round, deleted, saved, stays, named);
            if (problem) problems.push(`round ${round}: ${problem}`);
            else won[deleted === 'done' ? 'delete' : 'save']++;
          }
          t.diagnostic(`the delete came first ${won.delete} times, the save ${won.save} times`);
          assert.deepEqual(problems, []);
        });
      }
    }
  });
}
