// The rules text search's peer: the same query answered straight by the database's own
// full-text search over the same rules (SQLite FTS5 bm25, PostgreSQL ts_rank over the GIN
// index), with no service in between; and `/health` latency while the service searches.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { BM25_WEIGHTS, ftsQuery, TEXT_FIELDS, TS_WEIGHTS, tsQueryText } from '../src/rules/text-index.js';
import type { Measure } from './compare.js';
import type { BenchStore } from './engines.js';
import { percentile } from './lib.js';

/** A page of 20 best matches and the number of matches, as a user of the engine would ask. */
export interface TextPeer {
  search(studioId: string, words: readonly string[]): Promise<{ ids: string[]; total: number }>;
  close(): Promise<void>;
}

export async function openTextPeer(store: BenchStore): Promise<TextPeer> {
  if (store.sqliteFile) {
    const db = new SqliteDatabase(store.sqliteFile, { readonly: true });
    const weights = TEXT_FIELDS.map((field) => BM25_WEIGHTS[field]).join(', ');
    const page = db.prepare(
      `select s.rule_id from rule_text t join rule_search s on s.doc = t.rowid
       where rule_text match ? order by bm25(rule_text, ${weights}), s.rule_id limit 20`,
    );
    const count = db.prepare('select count(*) as n from rule_text where rule_text match ?');
    return {
      search: async (studioId, words) => {
        const match = ftsQuery(studioId, words);
        const ids = (page.all(match) as Array<{ rule_id: string }>).map((row) => row.rule_id);
        return { ids, total: (count.get(match) as { n: number }).n };
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: store.postgresUrl });
  await client.connect();
  return {
    search: async (studioId, words) => {
      const query = tsQueryText(studioId, words);
      const page = await client.query<{ rule_id: string }>(
        `select rule_id from rule_search where doc @@ $1::tsquery
         order by ts_rank($2::real[], doc, $1::tsquery) desc, rule_id limit 20`,
        [query, TS_WEIGHTS],
      );
      const count = await client.query<{ n: string }>(
        'select count(*) as n from rule_search where doc @@ $1::tsquery',
        [query],
      );
      return { ids: page.rows.map((row) => row.rule_id), total: Number(count.rows[0]!.n) };
    },
    close: () => client.end(),
  };
}

/** Runs `once` back to back for `seconds`, one at a time (as one connection does). */
export async function measureLoop(seconds: number, once: () => Promise<void>): Promise<Measure> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  while (performance.now() < end) {
    const started = performance.now();
    try {
      await once();
    } catch {
      errors++;
    }
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

/**
 * `/health` latencies while `work` runs, one request every 5 ms: a service that holds its
 * event loop in a search answers late. The slowest and the 99th percentile, in ms.
 */
export async function healthDuring(url: string, work: Promise<unknown>) {
  let done = false;
  void work.finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  let errors = 0;
  while (!done) {
    const started = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    if (!response.ok) errors++;
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    errors,
  };
}
