// The raw anchors of the ingestion scenario: the rows a batch of logged searches becomes,
// upserted straight through the driver with nothing of the service in between.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { checkTerm } from '../src/text/term-key.js';
import { hourOf } from '../src/typeahead/search-log.js';
import type { Measure } from './compare.js';
import { percentile } from './lib.js';

/** What one batch writes: its hourly buckets and its forms, aggregated and sorted by key. */
export interface BatchRows {
  searches: number;
  counts: Array<[key: string, hour: string, count: number]>;
  forms: Array<[key: string, form: string, count: number, lastHour: string]>;
}

const byFirstTwo = (a: readonly unknown[], b: readonly unknown[]) =>
  String(a[0]) < String(b[0])
    ? -1
    : String(a[0]) > String(b[0])
      ? 1
      : String(a[1]) < String(b[1])
        ? -1
        : String(a[1]) > String(b[1])
          ? 1
          : 0;

/** The rows the service derives from a batch of queries logged now (keyed outside the anchor's timing). */
export function batchRows(queries: readonly string[], now: Date): BatchRows {
  const hour = hourOf(now.getTime());
  const counts = new Map<string, number>();
  const forms = new Map<string, { key: string; form: string; count: number }>();
  for (const query of queries) {
    const check = checkTerm(query);
    if (!check.valid) continue;
    counts.set(check.key, (counts.get(check.key) ?? 0) + 1);
    const id = `${check.key}\u0000${check.term}`;
    const form = forms.get(id);
    if (form) form.count++;
    else forms.set(id, { key: check.key, form: check.term, count: 1 });
  }
  return {
    searches: queries.length,
    counts: [...counts]
      .map(([key, count]) => [key, hour, count] as [string, string, number])
      .sort(byFirstTwo),
    forms: [...forms.values()]
      .map((f) => [f.key, f.form, f.count, hour] as [string, string, number, string])
      .sort(byFirstTwo),
  };
}

function measureOf(searches: number, seconds: number, latencies: number[], cpuMicros: number): Measure {
  latencies.sort((a, b) => a - b);
  return {
    rps: searches / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: 0,
    cpuPerRequest: cpuMicros / latencies.length,
  };
}

/**
 * better-sqlite3 on the service's own file, with its settings (WAL, synchronous FULL): each
 * batch in one transaction, one prepared upsert per row. CPU is this process's, per batch.
 */
export function sqliteAnchor(file: string, instanceId: string, batches: readonly BatchRows[]): Measure {
  const db = new SqliteDatabase(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const count = db.prepare(
      'insert into typeahead_search_count (instance_id, key, hour, count) values (?, ?, ?, ?) on conflict (instance_id, key, hour) do update set count = count + excluded.count',
    );
    const form = db.prepare(
      'insert into typeahead_search_form (instance_id, key, form, count, last_hour) values (?, ?, ?, ?, ?) on conflict (instance_id, key, form) do update set count = count + excluded.count, last_hour = max(last_hour, excluded.last_hour)',
    );
    const write = db.transaction((rows: BatchRows) => {
      for (const [key, hour, n] of rows.counts) count.run(instanceId, key, hour, n);
      for (const [key, f, n, last] of rows.forms) form.run(instanceId, key, f, n, last);
    });
    const latencies: number[] = [];
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const rows of batches) {
      const at = performance.now();
      write(rows);
      latencies.push(performance.now() - at);
    }
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return measureOf(searches(batches), seconds, latencies, used.user + used.system);
  } finally {
    db.close();
  }
}

function placeholders(rows: number, columns: number): string {
  return Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`,
  ).join(', ');
}

/**
 * Straight through pg, `senders` connections at once: each batch one transaction of two
 * multi-row `INSERT … ON CONFLICT` statements. CPU is this process's (the client's), per batch.
 */
export async function postgresAnchor(
  url: string,
  instanceId: string,
  batches: readonly BatchRows[],
  senders: number,
): Promise<Measure> {
  const clients = await Promise.all(
    Array.from({ length: senders }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  try {
    const latencies: number[] = [];
    let next = 0;
    const send = async (client: pg.Client) => {
      while (next < batches.length) {
        const rows = batches[next++]!;
        const at = performance.now();
        await client.query('begin');
        await client.query(
          `insert into typeahead_search_count (instance_id, key, hour, count) values ${placeholders(rows.counts.length, 4)} on conflict (instance_id, key, hour) do update set count = typeahead_search_count.count + excluded.count`,
          rows.counts.flatMap((row) => [instanceId, ...row]),
        );
        await client.query(
          `insert into typeahead_search_form (instance_id, key, form, count, last_hour) values ${placeholders(rows.forms.length, 5)} on conflict (instance_id, key, form) do update set count = typeahead_search_form.count + excluded.count, last_hour = greatest(typeahead_search_form.last_hour, excluded.last_hour)`,
          rows.forms.flatMap((row) => [instanceId, ...row]),
        );
        await client.query('commit');
        latencies.push(performance.now() - at);
      }
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(clients.map(send));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return measureOf(searches(batches), seconds, latencies, used.user + used.system);
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

function searches(batches: readonly BatchRows[]): number {
  return batches.reduce((sum, rows) => sum + rows.searches, 0);
}
