// Links scenario: the link check at 100,000 and 1,000,000 links beside a bare Fastify route,
// on each engine, in rotating rounds; the growth between the two sizes; and the other
// lookups of the spec at 1,000,000 links.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { type ComparisonRow, comparisonTable, type Measure, medianMeasure, ratioOf } from './compare.js';
import { type BenchStore, createBenchStore, type Engine } from './engines.js';
import { seededRandom, startBare, startPointRead, startService } from './lib.js';
import { measureServer, rotatingRounds, sideByRound } from './measure.js';
import type { Benchmark } from './run.js';

const quick = process.env.BENCH_QUICK === '1';
const SIZES = quick ? [10_000, 100_000] : [100_000, 1_000_000];
const SECONDS = quick ? 3 : 10;
const ROUNDS = 3;
const OBJECTS = 200_003; // prime: (i * 7919) mod OBJECTS never repeats for one subject
const storedTypes = ['dependsOn', 'isPartOf', 'inContextOf', 'relatesTo'];
const reverse: Record<string, string> = {
  dependsOn: 'supports',
  isPartOf: 'hasPart',
  inContextOf: 'hasContext',
};
const password = 'bench-admin-password';
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const CREATED_AT = '2026-01-01T00:00:00.000Z';

/** The i-th generated link of a set of `links`, in its stored direction (about 10 per subject). */
function link(i: number, links: number) {
  return {
    subject: `component:${i % (links / 10)}`,
    object: `resource:${(i * 7919) % OBJECTS}`,
    type: storedTypes[i % storedTypes.length]!,
  };
}

/** Writes the links straight into the migrated store (set-up, not measured); answers ms. */
async function seed(store: BenchStore, links: number): Promise<number> {
  const started = performance.now();
  if (store.sqliteFile) {
    const db = new SqliteDatabase(store.sqliteFile);
    db.pragma('journal_mode = WAL');
    const insert = db.prepare(
      `insert into link (subject, link_type, object, originator, given_reversed, created_at) values (?, ?, ?, 'bench', 0, '${CREATED_AT}')`,
    );
    db.transaction(() => {
      for (let i = 0; i < links; i++) {
        const l = link(i, links);
        insert.run(l.subject, l.type, l.object);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } else {
    const client = new pg.Client({ connectionString: store.postgresUrl });
    await client.connect();
    try {
      // Multi-row inserts of 1,000 links: a few hundred statements for a million links.
      for (let start = 0; start < links; start += 1000) {
        const values: string[] = [];
        const rows: string[] = [];
        for (let i = start; i < Math.min(links, start + 1000); i++) {
          const l = link(i, links);
          const n = values.length;
          rows.push(`($${n + 1}, $${n + 2}, $${n + 3}, 'bench', 0, '${CREATED_AT}')`);
          values.push(l.subject, l.type, l.object);
        }
        await client.query(
          `insert into link (subject, link_type, object, originator, given_reversed, created_at) values ${rows.join(', ')}`,
          values,
        );
      }
    } finally {
      await client.end();
    }
  }
  await store.analyze();
  return Math.round(performance.now() - started);
}

const q = encodeURIComponent;

export const linksBenchmark: Benchmark = {
  name: 'links',
  async run(engine: Engine) {
    const stores: BenchStore[] = [];
    const stops: Array<() => Promise<void>> = [];
    try {
      const services = [];
      const seeded: string[] = [];
      for (const links of SIZES) {
        const store = await createBenchStore(engine, `links_${links}`);
        stores.push(store);
        const ms = await seed(store, links);
        seeded.push(`${links.toLocaleString('en')} in ${(ms / 1000).toFixed(1)} s`);
        const service = await startService({
          ...store.env,
          SEARCHDECK_ADMIN_PASSWORD: password,
          SEARCHDECK_SECRET_KEY: SECRET_KEY,
        });
        stops.push(() => service.stop());
        services.push({ links, service });
      }
      const headers = { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
      const l0 = link(0, SIZES[0]!);
      const sample = Array.from({ length: 10 }, () => ({
        subject: l0.subject,
        object: l0.object,
        linkType: l0.type,
        originator: 'bench',
        createdAt: CREATED_AT,
      }));
      const bare = await startBare(sample);
      stops.push(() => bare.stop());
      // The floor of a database-backed check: one prepared read on the largest graph's store.
      const largestStore = stores[stores.length - 1]!;
      const pointRead = await startPointRead(
        largestStore,
        'select 1 from link where subject = $1 and object = $2 and link_type = $3 limit 1',
        [{ query: 'subject' }, { query: 'object' }, { query: 'linkType' }],
      );
      stops.push(() => pointRead.stop());

      /** Checks of random existing links (seeded), subject+object+linkType as stored. */
      const checkOf = (links: number, seedNumber: number) => {
        const random = seededRandom(seedNumber);
        return () => {
          const l = link(Math.floor(random() * links), links);
          return `/api/links/check?subject=${q(l.subject)}&object=${q(l.object)}&linkType=${l.type}`;
        };
      };
      // Every side gets the same requests, the bare route those of the largest graph.
      const side = (pid: number, url: string, links: number) =>
        sideByRound(pid, { label: String(links), url, headers, seconds: SECONDS }, (round) =>
          checkOf(links, 42 + round),
        );
      const sides: Record<string, () => Promise<Measure>> = {
        bare: side(bare.pid, bare.url, SIZES[SIZES.length - 1]!),
        pointRead: side(pointRead.pid, pointRead.url, SIZES[SIZES.length - 1]!),
      };
      for (const { links, service } of services) sides[String(links)] = side(service.pid, service.url, links);
      // Unmeasured first: page cache, JIT, connections and the remembered credentials warm up.
      for (const side of Object.values(sides)) await side();
      const rounds = await rotatingRounds(ROUNDS, sides);
      const [small, large] = SIZES.map((links) => rounds[String(links)]!);
      const largest = SIZES[SIZES.length - 1]!.toLocaleString('en');
      const vsBare = ratioOf({ ours: large!, peer: rounds.bare! }, (m) => m.rps);
      const growth = ratioOf({ ours: small!, peer: large! }, (m) => m.rps);
      const floor = ratioOf({ ours: rounds.pointRead!, peer: rounds.bare! }, (m) => m.rps);
      const vsFloor = ratioOf({ ours: large!, peer: rounds.pointRead! }, (m) => m.rps);
      const rows: ComparisonRow[] = SIZES.map((links, i) => ({
        scenario: `check subject+object+linkType, ${links.toLocaleString('en')} links`,
        engine,
        measure: medianMeasure([small!, large!][i]!),
      }));
      rows[1] = {
        ...rows[1]!,
        peer: 'bare Fastify (throughput)',
        ratio: vsBare,
        target: '≥ 0.5 of bare throughput',
        met: vsBare.median >= 0.5,
      };
      rows.push({
        scenario: `growth ${SIZES[0]!.toLocaleString('en')} → ${largest} links (throughput at the small size over the large)`,
        engine,
        measure: medianMeasure(large!),
        peer: `check at ${SIZES[0]!.toLocaleString('en')} links`,
        ratio: growth,
        target: '≤ 1.2×',
        met: growth.median <= 1.2,
      });
      rows.push(
        {
          scenario: `check subject+object+linkType, ${largest} links`,
          engine,
          measure: medianMeasure(large!),
          peer: 'Fastify + one prepared read (throughput)',
          ratio: vsFloor,
        },
        {
          scenario: `Fastify + one prepared read of the link, no authentication, ${largest} links`,
          engine: 'peer',
          measure: medianMeasure(rounds.pointRead!),
          peer: 'bare Fastify (throughput)',
          ratio: floor,
        },
        {
          scenario: 'bare Fastify route, 10 link records',
          engine: 'peer',
          measure: medianMeasure(rounds.bare!),
        },
      );

      // The other lookups of the spec, once each, on the largest set.
      const { links, service } = services[services.length - 1]!;
      const random = seededRandom(7);
      const pick = () => link(Math.floor(random() * links), links);
      const lookups: Array<[string, () => string, number]> = [
        [
          'check subject+object+linkType (reverse direction)',
          () => {
            const l = pick();
            return `/api/links/check?subject=${q(l.object)}&object=${q(l.subject)}&linkType=${reverse[l.type] ?? l.type}`;
          },
          5,
        ],
        [
          'check by subject alone',
          () => `/api/links/check?subject=${q(random() < 0.5 ? pick().subject : pick().object)}`,
          10,
        ],
        ['list by subject alone', () => `/api/links?subject=${q(pick().subject)}`, 10],
      ];
      for (const [label, path, p99] of lookups) {
        const measure = await measureServer(service.pid, {
          label,
          url: service.url,
          headers,
          seconds: SECONDS,
          path,
        });
        rows.push({
          scenario: `${label}, ${largest} links`,
          engine,
          measure,
          target: `p99 ≤ ${p99} ms`,
          met: measure.p99 <= p99,
        });
      }
      return [
        '## Links',
        '',
        `Links seeded straight into ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (${seeded.join(', ')}; about 10 links per subject, ANALYZE after), one service per size. Admin Basic auth on every request. 10 connections, ${SECONDS} s per round, ${ROUNDS} rounds in which the bare route and each size run once, each round starting with the next side, after an unmeasured warm-up; figures are medians over the rounds, ratios the median (min–max) of the per-round ratios. Requests pick random existing links (seeded); the bare route receives the same requests as the largest graph (paths and Basic auth header), so the load generator, which shares the cores, does the same work on every side. The second peer is the least a check over the same store can do: bare Fastify with one prepared read of the link in its stored direction per request (better-sqlite3, or pg with a named statement over a pool of 10), no authentication, failure limit or reverse direction; its share of the bare route is the ceiling one database read per request leaves on this machine, and the service reads the database twice per check (the client's failure window, then the link).`,
        '',
        comparisonTable(rows),
        ...(quick
          ? ['', "Quick mode (`BENCH_QUICK=1`): short rounds and the small sizes; not the targets' sizes."]
          : []),
      ].join('\n');
    } finally {
      for (const stop of stops.reverse()) await stop();
      for (const store of stores) await store.remove();
    }
  },
};
