// The rules listing at scale: one studio of 10,000 and one of 100,000 rules
// beside 1,000,000 rules of other studios, listed through the real service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { insertRules } from '../src/rules/repository.js';
import type { Rule, RuleContent } from '../src/rules/rule.js';
import { NEW_RULE_META } from '../src/rules/rule-rows.js';
import { validateRuleContent } from '../src/rules/rule-validation.js';
import { openStore } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import type { Database } from '../src/storage/schema.js';
import { createClient, createStudio } from '../src/studios/service.js';
import { type LoadResult, load, loadTable, seededRandom, startBare, startService } from './lib.js';
import type { Benchmark } from './run.js';

const quick = process.env.BENCH_QUICK === '1';
const SMALL = quick ? 1_000 : 10_000;
const LARGE = quick ? 10_000 : 100_000;
const OTHERS = quick ? 20_000 : 1_000_000;
const SECONDS = quick ? 3 : 15;
const WORDS = [
  'laptop',
  'phone',
  'tablet',
  'camera',
  'monitor',
  'printer',
  'sale',
  'summer',
  'winter',
  'gaming',
  'office',
  'kitchen',
  'garden',
  'audio',
  'storage',
  'network',
  'outdoor',
  'kids',
  'fashion',
  'sport',
];
const TAGS = Array.from({ length: 50 }, (_, i) => `tag${i}`);
const TYPES = ['blockList', 'boostList', 'buryList', 'pinned', 'redirect', 'banner'] as const;
const DOCUMENTS = 200_000;

export const rulesBenchmark: Benchmark = {
  name: 'rules',
  async run() {
    const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-bench-rules-'));
    const secretKey = Buffer.alloc(32, 3).toString('base64');
    const env = {
      SEARCHDECK_DATA_DIR: dataDir,
      SEARCHDECK_ADMIN_PASSWORD: 'bench-password',
      SEARCHDECK_SECRET_KEY: secretKey,
    };
    try {
      const started = Date.now();
      const clients = await seed(dataDir);
      const seedSeconds = Math.round((Date.now() - started) / 1000);
      const service = await startService(env);
      const bare = await startBare({
        content: [],
        page: { size: 20, number: 0, totalElements: 0, totalPages: 0 },
      });
      try {
        const baseline = await load({
          label: 'bare route',
          url: `${bare.url}/bare`,
          seconds: SECONDS,
          connections: 1,
        });
        const results: LoadResult[] = [];
        for (const [studio, size] of [
          ['small', SMALL],
          ['large', LARGE],
        ] as const) {
          const token = await tokenOf(service.url, clients[studio]!);
          const headers = { authorization: `Bearer ${token}` };
          const random = seededRandom(7);
          const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
          const scenarios: Array<[string, () => string]> = [
            ['one filter (tags)', () => `/em-rules?tags=${pick(TAGS)}`],
            ['two filters (tags, types)', () => `/em-rules?tags=${pick(TAGS)}&types=${pick(TYPES)}`],
            [
              'searchQuery + textSearchRelevance',
              () =>
                `/em-rules?searchQuery=${pick(WORDS).slice(0, 4)}+${pick(WORDS)}&sort=textSearchRelevance`,
            ],
            ['targetedDocumentId', () => `/em-rules?targetedDocumentId=P${Math.floor(random() * DOCUMENTS)}`],
          ];
          for (const [label, path] of scenarios) {
            results.push(
              await load({
                label: `${label}, ${size.toLocaleString('en')} rules`,
                url: service.url,
                headers,
                path,
                seconds: SECONDS,
                connections: 1,
              }),
            );
          }
        }
        return [
          `## Rules listing`,
          '',
          `${LARGE.toLocaleString('en')} and ${SMALL.toLocaleString('en')} rules in two studios beside ${OTHERS.toLocaleString('en')} in others (SQLite; seeded in ${seedSeconds} s through the repository layer); one connection, so the percentiles are single-request latencies; size 20, default sort unless named.`,
          '',
          loadTable(results, baseline),
          '',
          'Targets (spec): one or two filters p50 ≤ 15 ms, relevance p50 ≤ 60 ms, targetedDocumentId p50 ≤ 15 ms; at most 3× from 10,000 to 100,000 rules.',
        ].join('\n');
      } finally {
        await service.stop();
        await bare.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

async function tokenOf(url: string, client: { clientId: string; clientSecret: string }): Promise<string> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Generates the rules deterministically and writes them straight through the repository. */
async function seed(dataDir: string) {
  const store = openStore({ dataDir });
  await migrateToLatest(store);
  const now = new Date('2026-06-01T00:00:00Z');
  const clients: Record<string, { clientId: string; clientSecret: string }> = {};
  const studios: Array<[string, number]> = [
    ['small', SMALL],
    ['large', LARGE],
  ];
  for (let i = 0; i < 10; i++) studios.push([`other${i}`, OTHERS / 10]);
  const random = seededRandom(42);
  for (const [id, count] of studios) {
    await createStudio(store.db, { id, name: id }, now);
    clients[id] = await createClient(store.db, id, { name: 'bench' }, now);
    await seedStudio(store.db, id, count, random);
  }
  await store.close();
  return clients;
}

async function seedStudio(db: Kysely<Database>, studioId: string, count: number, random: () => number) {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const batch = 2_000;
  for (let start = 0; start < count; start += batch) {
    const rules = Array.from({ length: Math.min(batch, count - start) }, (_, i) => {
      const n = start + i;
      const type = pick(TYPES);
      const documents = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => `P${Math.floor(random() * DOCUMENTS)}`,
      );
      const staging = contentOf({
        type,
        name: `${pick(WORDS)} ${pick(WORDS)} ${n}`,
        description: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
        tags: [pick(TAGS), pick(TAGS)],
        precedence: Math.floor(random() * 10),
        conditions: { queries: [pick(WORDS)] },
        ...typeFields(type, documents),
      });
      const state = random();
      const live = state < 0.5 ? null : state < 0.8 ? staging : { ...staging, tags: [pick(TAGS)] };
      const at = new Date(Date.parse('2025-01-01T00:00:00Z') + Math.floor(random() * 5e10)).toISOString();
      const rule: Rule = {
        id: `${studioId}-${String(n).padStart(7, '0')}-${Math.floor(random() * 1e9).toString(36)}`,
        studioId,
        externalId: null,
        contentType: 'RULE',
        migratedId: null,
        staging,
        live,
        createdBy: 'client:bench',
        creationDate: at,
        lastModifiedBy: 'client:bench',
        lastModified: at,
      };
      return { rule, meta: { ...NEW_RULE_META } };
    });
    await db.transaction().execute((trx) => insertRules(trx, rules));
  }
}

function typeFields(type: (typeof TYPES)[number], documents: string[]) {
  switch (type) {
    case 'pinned':
      return { pinnedValues: [...new Set(documents)].map((value, i) => ({ value, position: i + 1 })) };
    case 'redirect':
      return { url: 'https://shop.example/landing' };
    case 'banner':
      return { bannerUrl: 'https://cdn.example/banner.png' };
    default:
      return { fieldName: 'id', fieldValues: [...new Set(documents)] };
  }
}

function contentOf(body: Record<string, unknown>): RuleContent {
  const result = validateRuleContent(body);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}
