import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../../src/config.js';
import { type Engine, type Store, sqliteFile } from '../../src/storage/database.js';
import { DatabaseUnavailableError, databaseFailure } from '../../src/storage/unavailable.js';
import { adminAuth, build, engines, freshStore, skipReason } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { testDatabaseUrl } from '../helpers/postgres.js';
import { studioWithToken } from '../rules/api.js';
import { createInstance } from '../typeahead/helpers.js';

const link = { subject: 'app:shop', object: 'collection:products', linkType: 'dependsOn' };

function assertUnavailable(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 503, response.body);
  assert.equal(response.headers['retry-after'], '5');
  const body = response.json();
  assert.equal(body.code, 'unavailable');
  assert.equal(body.status, 503);
  assert.equal(body.requestId, response.headers['x-request-id']);
  assert.doesNotMatch(body.message, /ECONN|terminat|SQLITE|canceling/i, 'no driver detail');
}

/**
 * Another connection takes the write lock of every table and keeps it until released, as
 * a long migration or a stuck writer would: SQLite's write lock, or PostgreSQL's
 * exclusive lock on each table of the test's schema.
 */
async function holdWriteLock(engine: Engine, store: Store, config: Config): Promise<() => Promise<void>> {
  if (engine === 'sqlite') {
    const other = new SqliteDatabase(sqliteFile(config.dataDir));
    other.exec('begin immediate');
    return async () => {
      other.exec('rollback');
      other.close();
    };
  }
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  const schema = await currentSchema(store);
  const tables = await client.query<{ name: string }>(
    'select quote_ident(schemaname) || $2 || quote_ident(tablename) as name from pg_tables where schemaname = $1',
    [schema, '.'],
  );
  await client.query('begin');
  await client.query(`lock table ${tables.rows.map((t) => t.name).join(', ')} in access exclusive mode`);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}

async function currentSchema(store: Store): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db);
  return rows[0]!.schema;
}

for (const engine of engines) {
  describe(`a database that cannot answer (${engine})`, async () => {
    const skip = await skipReason(engine);

    test('answers 503 unavailable with Retry-After when the database cannot take a write in time', {
      skip,
    }, async (t) => {
      // The statement timeout ends the wait: on PostgreSQL as statement_timeout, on SQLite as
      // busy_timeout, waited out once (the driver waits on the event loop's thread), not once
      // per attempt of the transaction.
      const { app, store, config } = await build(t, engine, {
        env: { SEARCHDECK_STATEMENT_TIMEOUT_MS: '300' },
      });
      const headers = { authorization: adminAuth, 'x-request-id': 'busy-1' };
      assert.equal((await app.inject({ url: '/api/links', headers })).statusCode, 200);
      const release = await holdWriteLock(engine, store, config);
      try {
        const started = Date.now();
        assertUnavailable(await app.inject({ method: 'PUT', url: '/api/links', headers, payload: link }));
        assert.ok(Date.now() - started < 3000, 'the statement timeout ended the wait');
      } finally {
        await release();
      }
      const retried = await app.inject({ method: 'PUT', url: '/api/links', headers, payload: link });
      assert.ok(retried.statusCode < 300, retried.body);
    });
  });
}

describe('a PostgreSQL database that goes away', async () => {
  const skip = await skipReason('postgres');

  test('stops a statement at the configured statement timeout', { skip }, async (t) => {
    const { store } = await build(t, 'postgres', { env: { SEARCHDECK_STATEMENT_TIMEOUT_MS: '200' } });
    const setting = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(store.db);
    assert.equal(setting.rows[0]?.statement_timeout, '200ms');
    const started = Date.now();
    await assert.rejects(sql`select pg_sleep(3)`.execute(store.db), { code: '57014' });
    assert.ok(Date.now() - started < 2000);
  });

  test('applies a statement timeout of 5 s unless configured otherwise', { skip }, async (t) => {
    const { store } = await build(t, 'postgres');
    const setting = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(store.db);
    assert.equal(setting.rows[0]?.statement_timeout, '5s');
  });

  test('starts no parallel workers for a statement unless configured to', { skip }, async () => {
    // The store alone: the setting is its connections', the app plays no part. Each is closed
    // before the next opens, so one migrated schema serves both.
    const workers = async (env: Record<string, string>) => {
      const { store, close } = await freshStore('postgres', env);
      try {
        const shown = await sql<{
          value: string;
        }>`select current_setting('max_parallel_workers_per_gather') as value`.execute(store.db);
        return shown.rows[0]?.value;
      } finally {
        await close();
      }
    };
    assert.equal(await workers({}), '0');
    assert.equal(await workers({ SEARCHDECK_PG_PARALLEL_WORKERS: '2' }), '2');
  });

  test('answers 503 on every interface while nothing listens at the database address, then serves again', {
    skip,
  }, async (t) => {
    const proxy = await databaseProxy();
    t.after(() => proxy.stop());
    const { app } = await build(t, 'postgres', { env: { SEARCHDECK_DATABASE_URL: proxy.url } });
    const access = await studioWithToken(app, 'acme');
    const instance = await createInstance(app);
    const suggestions = {
      url: '/typeahead/suggestions?prefix=a',
      headers: { authorization: `Embed ${instance.embedToken}` },
    };
    assert.equal((await app.inject(suggestions)).statusCode, 200);
    const admin = { authorization: adminAuth };
    const tokenRequest = {
      method: 'POST' as const,
      url: '/oauth2/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${access.clientId}:${access.clientSecret}`).toString('base64')}`,
      },
      payload: 'grant_type=client_credentials',
    };
    proxy.stop();

    assertUnavailable(await app.inject({ url: '/api/links', headers: admin }));
    assertUnavailable(await app.inject({ url: '/api/typeahead/instances', headers: admin }));
    assertUnavailable(await app.inject({ url: '/em-rules', headers: access.headers }));
    // Suggestions come from each node's memory: they keep being served.
    assert.equal((await app.inject(suggestions)).statusCode, 200);
    const token = await app.inject(tokenRequest);
    assert.equal(token.statusCode, 503, token.body);
    assert.equal(token.headers['retry-after'], '5');
    assert.equal(token.json().error, 'temporarily_unavailable');
    assert.equal((await app.inject({ url: '/health' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/ready' })).json().code, 'not-ready');

    await proxy.start();
    assert.equal((await app.inject({ url: '/api/links', headers: admin })).statusCode, 200);
    assert.equal((await app.inject({ url: '/em-rules', headers: access.headers })).statusCode, 200);
    assert.equal((await app.inject(tokenRequest)).statusCode, 200);
  });

  test('answers 503 when the database ends the connection of a running request, then serves again', {
    skip,
  }, async (t) => {
    const application = `searchdeck_ends_${process.pid}_${Date.now()}`;
    const { app, store, config } = await build(t, 'postgres', {
      env: { SEARCHDECK_DATABASE_URL: `${testDatabaseUrl}?application_name=${application}` },
    });
    const headers = { authorization: adminAuth };
    assert.equal((await app.inject({ url: '/api/links', headers })).statusCode, 200);
    const release = await holdWriteLock('postgres', store, config);
    try {
      const answer = app.inject({ method: 'PUT', url: '/api/links', headers, payload: link });
      // Once the request waits for the lock, its connection is ended under it.
      await eventually(async () => (await terminate(application, "wait_event_type = 'Lock'")) > 0, {
        within: 2000,
        every: 20,
        message: 'the request never waited for the lock',
      });
      assertUnavailable(await answer);
    } finally {
      await release();
    }
    const again = await app.inject({ method: 'PUT', url: '/api/links', headers, payload: link });
    assert.ok(again.statusCode < 300, again.body);
  });

  test('keeps serving when the database ends idle pool connections between requests', { skip }, async (t) => {
    const application = `searchdeck_idle_${process.pid}_${Date.now()}`;
    const { app } = await build(t, 'postgres', {
      env: { SEARCHDECK_DATABASE_URL: `${testDatabaseUrl}?application_name=${application}` },
    });
    const headers = { authorization: adminAuth };
    await Promise.all([1, 2, 3].map(() => app.inject({ url: '/api/links', headers })));
    assert.ok((await terminate(application, "state = 'idle'")) > 0);
    for (let i = 0; i < 5; i++) {
      const response = await app.inject({ url: '/api/links', headers });
      // A connection whose end had not yet arrived may be handed out once: 503, never 500.
      if (response.statusCode !== 200) assertUnavailable(response);
    }
    // A fixed pause: the ends of the other terminated connections reach only the pg pool, which
    // tells nobody when it has dropped them; the request after it must then be served.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await app.inject({ url: '/api/links', headers })).statusCode, 200);
  });
});

/**
 * A TCP proxy in front of the test PostgreSQL: stopping it ends every connection and
 * leaves nothing listening at the address, as a database restart does.
 */
async function databaseProxy() {
  const target = new URL(testDatabaseUrl);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const start = async () => {
    const listening = net.createServer((inbound) => {
      const outbound = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {});
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    port = (listening.address() as AddressInfo).port;
    server = listening;
  };
  await start();
  const url = new URL(testDatabaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    start,
    stop: () => {
      server?.close();
      server = undefined;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Ends the backends of one application name matching a condition; answers how many. */
async function terminate(application: string, condition: string): Promise<number> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ ended: boolean }>(
      `select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 and ${condition}`,
      [application],
    );
    return rows.filter((r) => r.ended).length;
  } finally {
    await client.end();
  }
}

describe('which database errors mean the database is unavailable', () => {
  const postgresError = (code: string) => Object.assign(new pg.DatabaseError('failed', 0, 'error'), { code });

  test('names PostgreSQL shutdowns, restarts, connection losses and the statement timeout', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300']) {
      assert.equal(databaseFailure(postgresError(code)), 'unreachable', code);
    }
    assert.equal(databaseFailure(postgresError('57014')), 'timeout');
  });

  test('names socket errors and a busy SQLite, and nothing else', () => {
    assert.equal(
      databaseFailure(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })),
      'unreachable',
    );
    assert.equal(databaseFailure(new SqliteDatabase.SqliteError('locked', 'SQLITE_BUSY')), 'busy');
    assert.equal(databaseFailure(new SqliteDatabase.SqliteError('locked', 'SQLITE_BUSY_SNAPSHOT')), 'busy');
    assert.equal(
      databaseFailure(new SqliteDatabase.SqliteError('unique', 'SQLITE_CONSTRAINT_UNIQUE')),
      undefined,
    );
    assert.equal(databaseFailure(postgresError('23505')), undefined);
    assert.equal(databaseFailure(postgresError('40001')), undefined);
    assert.equal(databaseFailure(new Error('Connection terminated unexpectedly')), undefined);
    assert.equal(databaseFailure(new DatabaseUnavailableError('unreachable', undefined)), 'unreachable');
  });
});
