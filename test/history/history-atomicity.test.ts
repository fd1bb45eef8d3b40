// The event is written in the transaction of its change: a process killed in the middle of
// many changes leaves each change with its event, or neither.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import type { Engine } from '../../src/storage/database.js';
import { engines, skipReason } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/postgres.js';
import { startService } from '../helpers/process.js';

const PASSWORD = 'history-kill-password';
const headers = {
  authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
  'content-type': 'application/json',
};
const WRITES = 300;

/** The service's settings on a database of its own: a fresh data dir, and on PostgreSQL a fresh database. */
async function freshService(
  engine: Engine,
): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-history-'));
  const env = {
    SEARCHDECK_DATA_DIR: dataDir,
    SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
    SEARCHDECK_LOG_LEVEL: 'warn',
    // The WRITES requests go out side by side, each on a connection of its own: more than
    // one address may hold by default, and a refused connection would count as answered.
    SEARCHDECK_MAX_CONNECTIONS_PER_ADDRESS: '0',
  };
  if (engine === 'sqlite')
    return { env, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const name = `h_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    env: {
      ...env,
      SEARCHDECK_DATABASE_URL: url.toString(),
      SEARCHDECK_SECRET_KEY: randomBytes(32).toString('base64'),
    },
    drop: async () => {
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

for (const engine of engines) {
  describe(`history atomicity on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('a process killed mid-change leaves each change with its event, or neither', async (t) => {
      const { env, drop } = await freshService(engine);
      t.after(drop);
      const service = await startService(env);
      const acknowledged = new Set<string>();
      let answered = 0;
      let killed: Promise<unknown> | undefined;
      const writes = Array.from({ length: WRITES }, async (_, i) => {
        const subject = `s${i}`;
        try {
          const response = await fetch(`${service.url}/api/links`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ subject, object: 'o', linkType: 'dependsOn' }),
          });
          if (response.status === 200) acknowledged.add(subject);
        } catch {
          // The connection went with the process.
        }
        // Killed while most writes are still on their way.
        if (++answered === 20) killed = service.stop('SIGKILL');
      });
      await Promise.all(writes);
      await killed;
      assert.ok(acknowledged.size >= 20 && acknowledged.size < WRITES, `${acknowledged.size} acknowledged`);

      const restarted = await startService(env);
      t.after(() => restarted.stop());
      const links = await (
        await fetch(`${restarted.url}/api/links?object=o&limit=10000`, { headers })
      ).json();
      const events = await (
        await fetch(`${restarted.url}/api/history?action=put&size=1000`, { headers })
      ).json();
      const linked = new Set((links as Array<{ subject: string }>).map((link) => link.subject));
      const recorded = new Set(
        (events as { content: Array<{ object: string }> }).content.map(
          (event) => /^link:(\S+) /.exec(event.object)![1]!,
        ),
      );
      assert.deepEqual(
        [...recorded].sort(),
        [...linked].sort(),
        'every change has its event and no event lacks its change',
      );
      for (const subject of acknowledged) assert.ok(linked.has(subject), `acknowledged ${subject} kept`);
    });
  });
}
