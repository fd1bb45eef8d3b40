// Links scenario, under wrk: the link check in the reverse direction over links written through
// the API, and in the stored direction at 100,000 and 1,000,000 seeded links, each beside a bare
// Fastify route sent the same requests, on each engine, in rotating rounds; the growth between
// the two seeded sizes; and the other lookups of the spec at 1,000,000 links.
import { type ComparisonRow, comparisonTable, type Measure, medianMeasure, ratioOf } from './compare.js';
import { type BenchStore, createBenchStore, type Engine } from './engines.js';
import { seededRandom, startBare, startPointRead, startService } from './lib.js';
import {
  checkPaths,
  type GeneratedLink,
  link,
  reversed,
  reversibleLink,
  seed,
  writeThroughApi,
} from './links-data.js';
import { measureServer, rotatingRounds, sideByRound } from './measure.js';
import type { Benchmark } from './run.js';
import { requireWrk } from './wrk.js';

const quick = process.env.BENCH_QUICK === '1';
const SIZES = quick ? [10_000, 100_000] : [100_000, 1_000_000];
const WRITTEN = quick ? 3_000 : 30_000;
const WRITERS = 4;
const SECONDS = quick ? 3 : 10;
const ROUNDS = 3;
// As an outside load generator meets the service: more connections than a single client opens.
const CONNECTIONS = 20;
const LOOKUP_CONNECTIONS = 10;
const OF_BARE = 0.5;
const password = 'bench-admin-password';
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');

const q = encodeURIComponent;
const engineName = (engine: Engine) => (engine === 'sqlite' ? 'SQLite' : 'PostgreSQL');

export const linksBenchmark: Benchmark = {
  name: 'links',
  async run(engine: Engine) {
    requireWrk();
    const stores: BenchStore[] = [];
    const stops: Array<() => Promise<void>> = [];
    const headers = { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
    const serviceOn = async (store: BenchStore) => {
      const service = await startService({
        ...store.env,
        SEARCHDECK_ADMIN_PASSWORD: password,
        SEARCHDECK_SECRET_KEY: SECRET_KEY,
      });
      stops.push(() => service.stop());
      return service;
    };
    try {
      const writtenStore = await createBenchStore(engine, 'links_api');
      stores.push(writtenStore);
      const written = await serviceOn(writtenStore);
      const writeMs = await writeThroughApi(written.url, headers, WRITTEN, WRITERS);
      const services = [];
      const seeded: string[] = [];
      for (const links of SIZES) {
        const store = await createBenchStore(engine, `links_${links}`);
        stores.push(store);
        const ms = await seed(store, links);
        seeded.push(`${links.toLocaleString('en')} in ${(ms / 1000).toFixed(1)} s`);
        services.push({ links, service: await serviceOn(store) });
      }
      // The service's own answer to a check.
      const bare = await startBare(true);
      stops.push(() => bare.stop());
      // The floor of a database-backed check: one prepared read on the largest graph's store.
      const largestStore = stores[stores.length - 1]!;
      const pointRead = await startPointRead(
        largestStore,
        'select 1 from link where subject = $1 and object = $2 and link_type = $3 limit 1',
        [{ query: 'subject' }, { query: 'object' }, { query: 'linkType' }],
      );
      stops.push(() => pointRead.stop());

      // Every side gets the same requests as the side it is compared with, round by round.
      const side = (pid: number, url: string, paths: (round: number) => () => string) =>
        sideByRound(
          pid,
          { label: url, url, headers, seconds: SECONDS, connections: CONNECTIONS, generator: 'wrk' },
          paths,
        );
      const stored = (links: number) => (round: number) => checkPaths(links, 42 + round, link);
      const reverseOfWritten = (round: number) => checkPaths(WRITTEN, 42 + round, reversibleLink, reversed);
      const largest = SIZES[SIZES.length - 1]!;
      const sides: Record<string, () => Promise<Measure>> = {
        written: side(written.pid, written.url, reverseOfWritten),
        bareWritten: side(bare.pid, bare.url, reverseOfWritten),
        bare: side(bare.pid, bare.url, stored(largest)),
        pointRead: side(pointRead.pid, pointRead.url, stored(largest)),
      };
      for (const { links, service } of services)
        sides[String(links)] = side(service.pid, service.url, stored(links));
      // Unmeasured first: page cache, JIT, connections and the remembered credentials warm up.
      for (const warm of Object.values(sides)) await warm();
      const rounds = await rotatingRounds(ROUNDS, sides);
      const rows = comparisonRows(engine, rounds);

      // The other lookups of the spec, once each, on the largest seeded set.
      const { service } = services[services.length - 1]!;
      const random = seededRandom(7);
      const pick = () => link(Math.floor(random() * largest), largest);
      const asked = (l: GeneratedLink) =>
        `/api/links/check?subject=${q(l.subject)}&object=${q(l.object)}&linkType=${l.linkType}`;
      const lookups: Array<[string, () => string, number]> = [
        ['check subject+object+linkType (reverse direction)', () => asked(reversed(pick())), 5],
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
          connections: LOOKUP_CONNECTIONS,
          generator: 'wrk',
        });
        rows.push({
          scenario: `${label}, ${largest.toLocaleString('en')} links`,
          engine,
          measure,
          target: `p99 ≤ ${p99} ms`,
          met: measure.p99 <= p99,
        });
      }
      const writes = `${WRITTEN.toLocaleString('en')} links written with \`PUT /api/links\` by ${WRITERS} concurrent writers in ${(writeMs / 1000).toFixed(0)} s (${Math.round(WRITTEN / (writeMs / 1000))} writes/s; a reversible type each, every other one given from its object, no ANALYZE after)`;
      return [
        '## Links',
        '',
        `Load from wrk (2 threads, one request list per round cycled through, admin Basic auth on every request), ${CONNECTIONS} connections for the comparisons, ${SECONDS} s per round, ${ROUNDS} rounds in which every side runs once, each round starting with the next side, after an unmeasured warm-up; figures are medians over the rounds, ratios the median (min–max) of the per-round ratios. The case a user meets holds the target: ${writes} into ${engineName(engine)}, one service on them, checked in the reverse direction (object, subject, the reverse type) of random written links. Beside it, links seeded straight into the store (${seeded.join(', ')}; about 10 links per subject, ANALYZE after), one service per size, checked in their stored direction. The bare route answers \`true\` as the check does and receives the same requests as the side it is compared with (paths and Basic auth header), so the load generator does the same work on both sides. The second peer is the least a check over the same store can do: bare Fastify with one prepared read of the link in its stored direction per request (better-sqlite3, or pg with a named statement over a pool of 10), no authentication, failure limit or reverse direction; its share of the bare route is the ceiling one database read per request leaves on this machine, and the service reads the database twice per check (the client's failure window, then the link). The lookups at the end run once each, ${LOOKUP_CONNECTIONS} connections.`,
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

/** The table rows of the rotating rounds: the targets, then the floors and the peers' own rows. */
function comparisonRows(engine: Engine, rounds: Record<string, Measure[]>): ComparisonRow[] {
  const [small, large] = SIZES.map((links) => rounds[String(links)]!) as [Measure[], Measure[]];
  const [smallName, largeName] = SIZES.map((links) => links.toLocaleString('en')) as [string, string];
  const written = ratioOf({ ours: rounds.written!, peer: rounds.bareWritten! }, (m) => m.rps);
  const vsBare = ratioOf({ ours: large, peer: rounds.bare! }, (m) => m.rps);
  const growth = ratioOf({ ours: small, peer: large }, (m) => m.rps);
  const floor = ratioOf({ ours: rounds.pointRead!, peer: rounds.bare! }, (m) => m.rps);
  const vsFloor = ratioOf({ ours: large, peer: rounds.pointRead! }, (m) => m.rps);
  const storedCheck = (name: string) => `check subject+object+linkType, ${name} seeded links`;
  return [
    {
      scenario: `check in the reverse direction, ${WRITTEN.toLocaleString('en')} links written through the API`,
      engine,
      measure: medianMeasure(rounds.written!),
      peer: 'bare Fastify, same requests (throughput)',
      ratio: written,
      target: `≥ ${OF_BARE} of bare throughput`,
      met: written.median >= OF_BARE,
    },
    { scenario: storedCheck(smallName), engine, measure: medianMeasure(small) },
    {
      scenario: storedCheck(largeName),
      engine,
      measure: medianMeasure(large),
      peer: 'bare Fastify, same requests (throughput)',
      ratio: vsBare,
    },
    {
      scenario: `growth ${smallName} → ${largeName} seeded links (throughput at the small size over the large)`,
      engine,
      measure: medianMeasure(large),
      peer: `check at ${smallName} links`,
      ratio: growth,
      target: '≤ 1.2×',
      met: growth.median <= 1.2,
    },
    {
      scenario: storedCheck(largeName),
      engine,
      measure: medianMeasure(large),
      peer: 'Fastify + one prepared read (throughput)',
      ratio: vsFloor,
    },
    {
      scenario: `Fastify + one prepared read of the link, no authentication, ${largeName} seeded links`,
      engine: 'peer',
      measure: medianMeasure(rounds.pointRead!),
      peer: 'bare Fastify (throughput)',
      ratio: floor,
    },
    {
      scenario: "bare Fastify route answering `true`, the written links' requests",
      engine: 'peer',
      measure: medianMeasure(rounds.bareWritten!),
    },
    {
      scenario: `bare Fastify route answering \`true\`, the ${largeName} seeded links' requests`,
      engine: 'peer',
      measure: medianMeasure(rounds.bare!),
    },
  ];
}
