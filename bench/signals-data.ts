// The data of the signals scenario: raw signal rows of a batch, rollups of 30 days seeded
// straight into their tables, and one hour of raw rows for the rollup to roll.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { COUNT_COLUMNS } from '../src/analytics/tables.js';
import { SIGNAL_COLUMNS } from '../src/signals/repository.js';
import { seededRandom } from './lib.js';

export const APP = 'bench';
export const PROFILE = 'web';
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A handle that runs one multi-row insert, on either engine. */
export interface Writer {
  insert(table: string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): Promise<void>;
  /** Runs one statement without parameters. */
  execute(statement: string): Promise<void>;
  /** Bytes the tables take on disk, indexes included. */
  bytes(tables: readonly string[]): Promise<number>;
  close(): Promise<void>;
}

export function sqliteWriter(file: string): Writer {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  return {
    async insert(table, columns, rows) {
      const per = Math.max(1, Math.floor(30_000 / columns.length));
      db.transaction(() => {
        for (let i = 0; i < rows.length; i += per) {
          const chunk = rows.slice(i, i + per);
          const tuple = `(${columns.map(() => '?').join(',')})`;
          db.prepare(
            `insert into ${table} (${columns.join(',')}) values ${chunk.map(() => tuple).join(',')}`,
          ).run(...chunk.flat());
        }
      })();
    },
    async execute(statement) {
      db.exec(statement);
    },
    async bytes(tables) {
      db.pragma('wal_checkpoint(TRUNCATE)');
      const names = tables.map((t) => `'${t}'`).join(',');
      const indexes = db
        .prepare(`select name from sqlite_schema where tbl_name in (${names})`)
        .all() as Array<{ name: string }>;
      const all = indexes.map((i) => `'${i.name}'`).join(',');
      const row = db.prepare(`select sum(pgsize) as bytes from dbstat where name in (${all})`).get() as {
        bytes: number;
      };
      return row.bytes;
    },
    async close() {
      db.close();
    },
  };
}

export function postgresWriter(url: string): Writer {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    async insert(table, columns, rows) {
      const per = Math.max(1, Math.floor(30_000 / columns.length));
      const client = await pool.connect();
      try {
        await client.query('begin');
        for (let i = 0; i < rows.length; i += per) {
          const chunk = rows.slice(i, i + per);
          const tuples = chunk.map(
            (_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(',')})`,
          );
          await client.query(
            `insert into ${table} (${columns.join(',')}) values ${tuples.join(',')}`,
            chunk.flat(),
          );
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
    },
    async execute(statement) {
      await pool.query(statement);
    },
    async bytes(tables) {
      await pool.query('vacuum analyze');
      let total = 0;
      for (const table of tables) {
        const { rows } = await pool.query('select pg_total_relation_size($1) as bytes', [table]);
        total += Number(rows[0].bytes);
      }
      return total;
    },
    close: () => pool.end(),
  };
}

export { SIGNAL_COLUMNS };

/** A batch of click, cart and purchase signals as posted, and as raw rows. */
export function signalBatch(random: () => number, batch: number, size: number, now: number) {
  const types = ['click', 'click', 'click', 'cart', 'purchase'];
  const posted = [];
  const rows = [];
  for (let i = 0; i < size; i++) {
    const type = types[Math.floor(random() * types.length)]!;
    const docId = `doc-${Math.floor(random() ** 2 * 50_000)}`;
    const user = `shopper-${Math.floor(random() * 100_000)}`;
    const query = `query ${Math.floor(random() ** 3 * 20_000)}`;
    posted.push({ type, timestamp: now, params: { docId, query, user_id: user, position: 1 + (i % 20) } });
    rows.push([
      `b${batch}-${i}`,
      APP,
      'products',
      type,
      now,
      now,
      docId,
      query,
      query,
      null,
      null,
      1 + (i % 20),
      null,
      null,
      user.padEnd(43, 'x'),
      null,
      '{}',
    ]);
  }
  return { body: JSON.stringify(posted), rows };
}

/** Zipf-like counts: `total` searches over `keys` search strings, the first most searched. */
function skewedCounts(random: () => number, total: number, keys: number): number[] {
  const weights = Array.from({ length: keys }, (_, i) => 1 / (i + 1) ** 0.9 + random() * 1e-6);
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => Math.max(1, Math.round((w / sum) * total)));
}

/**
 * Rollups of `days` days of `perDay` searches each, ending today: daily rows per search
 * string, rule and document, and hourly totals, as the rollup would have written them.
 */
export async function seedRollups(
  writer: Writer,
  perDay: number,
  days: number,
  now: number,
): Promise<number> {
  const random = seededRandom(7);
  const keys = Math.max(50, Math.round(perDay / 50));
  const documents = Math.max(50, Math.round(perDay / 100));
  const today = now - (now % DAY);
  let written = 0;
  const dayColumns = ['app', 'profile_id', 'kind', 'day', 'item', ...COUNT_COLUMNS];
  const hourColumns = ['app', 'profile_id', 'kind', 'hour', 'item', ...COUNT_COLUMNS];
  for (let d = 0; d < days; d++) {
    const day = today - d * DAY;
    const counts = skewedCounts(random, perDay, keys);
    const rows = counts.map((count, k) => {
      const clicks = Math.floor(count * 0.3);
      const hits = k % 17 === 0 ? 0 : 1 + (k % 500);
      return [
        APP,
        PROFILE,
        'search',
        day,
        `query ${k}`,
        count,
        hits === 0 ? count : 0,
        clicks,
        Math.floor(count * 0.03),
        Math.floor(count * 0.06),
        clicks,
        0,
        0,
        clicks * 3,
        clicks,
        day + 20 * HOUR + k,
        hits,
      ];
    });
    for (let r = 0; r < 40; r++) {
      const fired = Math.floor(perDay / (r + 2));
      rows.push([
        APP,
        PROFILE,
        'rule',
        day,
        `rule-${r}`,
        fired,
        0,
        Math.floor(fired * 0.3),
        Math.floor(fired * 0.03),
        Math.floor(fired * 0.06),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
      ]);
    }
    const docCounts = skewedCounts(random, perDay * 0.3, documents);
    for (const [i, clicks] of docCounts.entries())
      rows.push([
        APP,
        PROFILE,
        'document',
        day,
        `doc-${i}`,
        0,
        0,
        0,
        0,
        0,
        clicks,
        Math.floor(clicks / 10),
        Math.floor(clicks / 5),
        0,
        0,
        0,
        0,
      ]);
    rows.push([
      APP,
      PROFILE,
      'total',
      day,
      '',
      perDay,
      Math.floor(perDay * 0.06),
      Math.floor(perDay * 0.3),
      Math.floor(perDay * 0.03),
      Math.floor(perDay * 0.06),
      0,
      0,
      0,
      0,
      0,
      0,
      0,
    ]);
    await writer.insert('analytics_day', dayColumns, rows);
    const hours = Array.from({ length: 24 }, (_, h) => {
      const n = Math.round(perDay / 24);
      return [
        APP,
        PROFILE,
        'total',
        day + h * HOUR,
        '',
        n,
        Math.floor(n * 0.06),
        Math.floor(n * 0.3),
        Math.floor(n * 0.03),
        Math.floor(n * 0.06),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
      ];
    });
    await writer.insert('analytics_hour', hourColumns, hours);
    written += rows.length + hours.length;
  }
  return written;
}

/** One hour of raw searches (and a click on about a third of them) in the current hour. */
export async function seedRawHour(
  writer: Writer,
  searches: number,
  now: number,
  prefix = 's',
): Promise<void> {
  const random = seededRandom(9);
  const hour = now - (now % HOUR);
  const searchColumns = [
    'id',
    'app',
    'profile_id',
    'collection',
    'at',
    'query',
    'query_key',
    'rewritten',
    'hits',
    'doc_ids',
    'rule_ids',
    'segment',
    'user_hash',
    'session_hash',
    'counted',
  ];
  const searchRows = [];
  const signalRows = [];
  for (let i = 0; i < searches; i++) {
    const key = `query ${Math.floor(random() ** 3 * 20_000)}`;
    const at = hour + Math.floor((i / searches) * Math.max(1, now - hour));
    const docs = Array.from({ length: 10 }, (_, d) => `doc-${(i + d * 7) % 50_000}`);
    searchRows.push([
      `${prefix}${i}`,
      APP,
      PROFILE,
      'products',
      at,
      key,
      key,
      key,
      Math.floor(random() * 500),
      JSON.stringify(docs),
      JSON.stringify(i % 5 === 0 ? ['rule-1'] : []),
      null,
      null,
      null,
      1,
    ]);
    if (random() < 0.33)
      signalRows.push([
        `${prefix}g${i}`,
        APP,
        'products',
        'click',
        at + 1000,
        at + 1000,
        docs[i % 10],
        key,
        key,
        `${prefix}${i}`,
        'sent',
        null,
        null,
        null,
        null,
        null,
        '{}',
      ]);
  }
  await writer.insert('search_signal', searchColumns, searchRows);
  await writer.insert('signal', SIGNAL_COLUMNS, signalRows);
}
