/**
 * Seeds typeahead tables straight into a service's SQLite file, for the scenarios whose
 * data would take far too long through the API: a large search log for the job, and a
 * thousand full instances for memory. Deterministic: the same rows on every run.
 */
import SqliteDatabase from 'better-sqlite3';
import { termKey } from '../src/text/term-key.js';
import type { EmbedTokens } from '../src/typeahead/embed-tokens.js';
import { hourOf } from '../src/typeahead/search-log.js';
import { seededRandom } from './lib.js';
import { randomTerms } from './typeahead-data.js';

const HOUR_MS = 3_600_000;
const ROWS_PER_TRANSACTION = 200_000;

// The service keeps the file open meanwhile (WAL): these rows need no durability, only speed.
function openForSeeding(file: string): SqliteDatabase.Database {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('busy_timeout = 10000');
  return db;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'pu', 'ra', 'si', 'to', 'vu', 'ze', 'bri', 'dan', 'fel', 'gor'];

/** A key made of letters only, so none looks like a phone number: "kalo ne 3f9" style. */
function searchKey(i: number, random: () => number): string {
  const word = () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
  const letters = [...i.toString(26)].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)));
  return `${word()}${word()} ${word()} ${letters.join('')}`;
}

export interface SearchLogSeed {
  searches: number;
  keys: number;
  /** Buckets are spread over this many hours before `now` (inside the window). */
  hours: number;
  now: Date;
  seed: number;
}

/**
 * Writes `searches` logged searches over `keys` distinct keys into the hourly buckets of
 * one instance, long-tailed like real logs (a few keys searched very often, most once or
 * twice), each key spread over up to `hours` hourly buckets; and one display form per key.
 */
export function seedSearchLog(file: string, instanceId: string, options: SearchLogSeed): { rows: number } {
  const random = seededRandom(options.seed);
  const keys = Array.from({ length: options.keys }, (_, i) => searchKey(i, random));
  // Counts by generation order (which is random with respect to key order): one each,
  // and the rest shared out by 1/rank.
  let harmonic = 0;
  for (let i = 1; i <= keys.length; i++) harmonic += 1 / i;
  const rest = options.searches - keys.length;
  const counts = keys.map((_, i) => 1 + Math.floor(rest / harmonic / (i + 1)));
  counts[0]! += options.searches - counts.reduce((sum, c) => sum + c, 0);
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));

  const db = openForSeeding(file);
  const bucket = db.prepare(
    'insert into typeahead_search_count (instance_id, key, hour, count) values (?, ?, ?, ?)',
  );
  const form = db.prepare(
    'insert into typeahead_search_form (instance_id, key, form, count, last_hour) values (?, ?, ?, ?, ?)',
  );
  const nowHourMs = options.now.getTime() - (options.now.getTime() % HOUR_MS);
  const hourNames = Array.from({ length: options.hours }, (_, h) => hourOf(nowHourMs - h * HOUR_MS));
  let rows = 0;
  const writeKeys = db.transaction((slice: number[]) => {
    for (const i of slice) {
      const key = keys[i]!;
      const count = counts[i]!;
      const buckets = Math.min(count, options.hours);
      const step = Math.floor(options.hours / buckets);
      const start = Math.floor(random() * options.hours);
      const hours = Array.from({ length: buckets }, (_, b) => (start + b * step) % options.hours);
      hours.sort((a, b) => b - a);
      for (let b = 0; b < buckets; b++) {
        const share = Math.floor(count / buckets) + (b < count % buckets ? 1 : 0);
        bucket.run(instanceId, key, hourNames[hours[b]!]!, share);
      }
      form.run(instanceId, key, key, count, hourNames[hours[buckets - 1]!]!);
      rows += buckets;
    }
  });
  const keysPerTransaction = Math.max(1, Math.floor(ROWS_PER_TRANSACTION / (options.searches / keys.length)));
  for (let i = 0; i < order.length; i += keysPerTransaction)
    writeKeys(order.slice(i, i + keysPerTransaction));
  db.close();
  return { rows };
}

export interface InstancesSeed {
  count: number;
  included: number;
  topSearched: number;
  tokens: EmbedTokens;
  now: Date;
}

/** The embed token of the i-th seeded instance (43 URL-safe characters, like real ones). */
export function seededToken(i: number): string {
  return `bench-${String(i).padStart(6, '0')}`.padEnd(43, 'x');
}

/** The ids of the seeded instances. */
export function seededInstanceId(i: number): string {
  return `bench${String(i).padStart(6, '0')}`;
}

/** Distinct terms by key, skipping keys already taken. */
function distinctTerms(random: () => number, count: number, taken: Set<string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  while (out.length < count) {
    for (const term of randomTerms(random, count - out.length)) {
      const key = termKey(term);
      if (key.length === 0 || taken.has(key)) continue;
      taken.add(key);
      out.push([key, term]);
    }
  }
  return out;
}

/** Creates `count` instances, each with `included` curated and `topSearched` top-searched terms. */
export function seedInstances(file: string, options: InstancesSeed): void {
  const db = openForSeeding(file);
  const instance = db.prepare(
    `insert into typeahead_instance (id, name, allowed_origins, top_terms_window_days, min_count,
       cache_max_age_seconds, token_hash, version, created_at, updated_at)
     values (?, ?, '["*"]', 30, 3, 60, ?, 1, ?, ?)`,
  );
  const term = db.prepare(
    `insert into typeahead_term (instance_id, list, key, term) values (?, 'included', ?, ?)`,
  );
  const top = db.prepare(
    'insert into typeahead_top_term (instance_id, key, term, count) values (?, ?, ?, ?)',
  );
  const at = options.now.toISOString();
  const writeInstance = db.transaction((i: number) => {
    const id = seededInstanceId(i);
    const random = seededRandom(1000 + i);
    const taken = new Set<string>();
    instance.run(id, `Bench ${i}`, options.tokens.hash(seededToken(i)), at, at);
    for (const [key, text] of distinctTerms(random, options.included, taken)) term.run(id, key, text);
    const ranked = distinctTerms(random, options.topSearched, taken);
    ranked.forEach(([key, text], rank) => {
      top.run(id, key, text, 10_000 - rank);
    });
  });
  for (let i = 0; i < options.count; i++) writeInstance(i);
  db.close();
}
