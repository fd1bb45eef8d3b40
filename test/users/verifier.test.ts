import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { httpOf } from '../../src/http/error-handler.js';
import type { AppError } from '../../src/http/errors.js';
import { FailureLimiter } from '../../src/http/rate-limiter.js';
import { hashSecret } from '../../src/security/password-hash.js';
import { AccountThrottle } from '../../src/users/account-throttle.js';
import { PasswordCheck } from '../../src/users/admin-auth.js';
import { deleteUserRow, insertUser, updateUserRow } from '../../src/users/repository.js';
import { UserVerifier } from '../../src/users/verifier.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';

const RIGHT = 'the-right-password';
const WRONG = 'a-wrong-password';

async function withUser(engine: (typeof engines)[number], username: string) {
  const fresh = await freshStore(engine);
  const at = new Date().toISOString();
  await insertUser(fresh.store.db, {
    username,
    password_hash: await hashSecret(RIGHT),
    role: 'viewer',
    studios: '[]',
    typeahead_instances: '[]',
    created_at: at,
    updated_at: at,
  });
  return fresh;
}

for (const engine of engines) {
  describe(`remembered credentials on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a verified password is known without scrypt; a wrong one never is', async (t) => {
      const fresh = await withUser(engine, 'vera');
      t.after(() => fresh.close());
      const verifier = new UserVerifier(fresh.store.db);
      assert.equal(await verifier.knownVerdict('vera', RIGHT), undefined, 'nothing is known before a check');
      assert.equal((await verifier.verify('vera', RIGHT))?.username, 'vera');
      assert.equal(((await verifier.knownVerdict('vera', RIGHT)) || undefined)?.username, 'vera');
      // Another password of the same user, a prefix of the right one, another user's name.
      for (const [user, password] of [
        ['vera', WRONG],
        ['vera', RIGHT.slice(0, -1)],
        ['vera', `${RIGHT} `],
        ['other', RIGHT],
      ] as const) {
        assert.equal(await verifier.knownVerdict(user, password), undefined, `${user}:${password}`);
        assert.equal(await verifier.verify(user, password), undefined, `${user}:${password}`);
      }
      assert.equal(((await verifier.knownVerdict('vera', RIGHT)) || undefined)?.username, 'vera');
    });

    test('a changed password or a deleted user is no longer known, on this node at once', async (t) => {
      const fresh = await withUser(engine, 'vera');
      t.after(() => fresh.close());
      const verifier = new UserVerifier(fresh.store.db);
      await verifier.verify('vera', RIGHT);
      await updateUserRow(fresh.store.db, 'vera', { password_hash: await hashSecret('a-new-password') });
      verifier.forget('vera');
      assert.equal(await verifier.knownVerdict('vera', RIGHT), undefined);
      assert.equal(await verifier.verify('vera', RIGHT), undefined);
      assert.equal((await verifier.verify('vera', 'a-new-password'))?.username, 'vera');

      await deleteUserRow(fresh.store.db, 'vera');
      verifier.forget('vera');
      assert.equal(await verifier.knownVerdict('vera', 'a-new-password'), undefined);
    });

    test('a password changed on another node is no longer known once the row is read again', async (t) => {
      const fresh = await withUser(engine, 'vera');
      t.after(() => fresh.close());
      // Rows are re-read on every check (no refresh delay), as after the delay has passed.
      const verifier = new UserVerifier(fresh.store.db, 0);
      await verifier.verify('vera', RIGHT);
      assert.ok(await verifier.knownVerdict('vera', RIGHT));
      const other = fresh.openAnother();
      await updateUserRow(other.db, 'vera', { password_hash: await hashSecret('a-new-password') });
      // A fixed 2 ms on purpose: a row read in this same millisecond is still within the refresh
      // delay of 0 ms, and it is the passing of that delay that is tested.
      await new Promise((resolve) => setTimeout(resolve, 2));
      assert.equal(await verifier.knownVerdict('vera', RIGHT), undefined);
      await deleteUserRow(other.db, 'vera');
      await new Promise((resolve) => setTimeout(resolve, 2));
      assert.equal(await verifier.knownVerdict('vera', 'a-new-password'), undefined);
    });

    test('credentials remembered on a connection admit only the same credentials', async (t) => {
      const fresh = await withUser(engine, 'vera');
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const now = () => new Date();
      const log = { warn: () => {} } as unknown as FastifyInstance['log'];
      const verifier = new UserVerifier(db);
      const limiter = new FailureLimiter(db, 'admin-login', now);
      const passwords = new PasswordCheck(
        {
          db,
          verifier,
          limiter,
          accounts: new AccountThrottle(db, now),
          now,
          sessions: { idleMs: 60_000, maxMs: 3_600_000 },
        },
        log,
      );
      const connection = {};
      const check = (user: string, password: string) =>
        passwords.check('192.0.2.7', user, password, 'Basic', connection).then(
          (found) => found.username,
          (error: AppError) => httpOf(error).status,
        );
      assert.equal(await check('vera', RIGHT), 'vera');
      assert.equal(await check('vera', RIGHT), 'vera');
      // The same connection, other credentials: each is checked as if the connection were new.
      assert.equal(await check('vera', WRONG), 401);
      assert.equal(await check('vera', `${RIGHT} `), 401);
      assert.equal(await check('other', RIGHT), 401);
      assert.equal(await check('vera', RIGHT), 'vera');
      // A password changed since is refused on the connection that used the old one.
      await updateUserRow(db, 'vera', { password_hash: await hashSecret('a-new-password') });
      verifier.forget('vera');
      assert.equal(await check('vera', RIGHT), 401);
      assert.equal(await check('vera', 'a-new-password'), 'vera');
    });
  });
}
