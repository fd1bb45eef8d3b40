import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type LoadResult,
  load,
  loadTable,
  root,
  rssMiB,
  seededRandom,
  startBare,
  startService,
} from './lib.js';
import type { Benchmark } from './run.js';

const quick = process.env.BENCH_QUICK === '1';
const LINKS = quick ? 50_000 : 1_000_000;
const SUBJECTS = LINKS / 10;
const OBJECTS = 200_003; // prime: (i * 7919) mod OBJECTS never repeats for one subject
const SECONDS = quick ? 3 : 10;
const storedTypes = ['dependsOn', 'isPartOf', 'inContextOf', 'relatesTo'];
const reverse: Record<string, string> = {
  dependsOn: 'supports',
  isPartOf: 'hasPart',
  inContextOf: 'hasContext',
};
const password = 'bench-admin-password';

/** The i-th generated link, in its stored direction. */
function link(i: number) {
  return {
    subject: `component:${i % SUBJECTS}`,
    object: `resource:${(i * 7919) % OBJECTS}`,
    type: storedTypes[i % storedTypes.length]!,
  };
}

/** Writes the links straight into a migrated SQLite file: set-up, not what is measured. */
function seed(dataDir: string): number {
  execFileSync(process.execPath, ['dist/src/main.js', 'migrate', '--data-dir', dataDir], { cwd: root });
  const started = performance.now();
  const db = new SqliteDatabase(join(dataDir, 'searchdeck.db'));
  db.pragma('journal_mode = WAL');
  const insert = db.prepare(
    "insert into link (subject, link_type, object, originator, given_reversed, created_at) values (?, ?, ?, 'bench', 0, '2026-01-01T00:00:00.000Z')",
  );
  db.transaction(() => {
    for (let i = 0; i < LINKS; i++) {
      const l = link(i);
      insert.run(l.subject, l.type, l.object);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return Math.round(performance.now() - started);
}

export const linksBenchmark: Benchmark = {
  name: 'links',
  async run() {
    const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-bench-links-'));
    try {
      const seedMs = seed(dataDir);
      const dbMiB = Math.round(statSync(join(dataDir, 'searchdeck.db')).size / 2 ** 20);
      const service = await startService({
        SEARCHDECK_DATA_DIR: dataDir,
        SEARCHDECK_ADMIN_PASSWORD: password,
      });
      const headers = { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
      const random = seededRandom(42);
      const pick = () => link(Math.floor(random() * LINKS));
      const q = encodeURIComponent;
      const results: LoadResult[] = [];
      let rss = 0;
      try {
        // Warm up the page cache and the JIT before measuring.
        await load({
          label: 'warm-up',
          url: `${service.url}/api/links/check?subject=component:1`,
          headers,
          seconds: 2,
        });
        results.push(
          await load({
            label: 'check subject+object+linkType (stored direction)',
            url: service.url,
            headers,
            seconds: SECONDS,
            path: () => {
              const l = pick();
              return `/api/links/check?subject=${q(l.subject)}&object=${q(l.object)}&linkType=${l.type}`;
            },
          }),
          await load({
            label: 'check subject+object+linkType (reverse direction)',
            url: service.url,
            headers,
            seconds: SECONDS,
            path: () => {
              const l = pick();
              const type = reverse[l.type] ?? l.type;
              return `/api/links/check?subject=${q(l.object)}&object=${q(l.subject)}&linkType=${type}`;
            },
          }),
          await load({
            label: 'check by subject alone',
            url: service.url,
            headers,
            seconds: SECONDS,
            path: () => `/api/links/check?subject=${q(Math.random() < 0.5 ? pick().subject : pick().object)}`,
          }),
          await load({
            label: 'list by subject alone',
            url: service.url,
            headers,
            seconds: SECONDS,
            path: () => `/api/links?subject=${q(pick().subject)}`,
          }),
        );
      } finally {
        rss = rssMiB(service.pid);
        await service.stop();
      }
      const l = link(0);
      const sample = Array.from({ length: 10 }, () => ({
        subject: l.subject,
        object: l.object,
        linkType: l.type,
        originator: 'bench',
        createdAt: '2026-01-01T00:00:00.000Z',
      }));
      const bare = await startBare(sample);
      let baseline: LoadResult;
      try {
        baseline = await load({
          label: 'bare Fastify route (10 link records)',
          url: `${bare.url}/bare`,
          seconds: SECONDS,
        });
      } finally {
        await bare.stop();
      }
      return [
        `## Links`,
        '',
        `${LINKS.toLocaleString('en')} links (${SUBJECTS.toLocaleString('en')} subjects, about 10 links each and about 5 as object), embedded SQLite: ${dbMiB} MiB on disk, seeded in ${seedMs} ms. Admin Basic auth on every request. 10 connections, ${SECONDS} s per row; requests pick random existing links (seeded).`,
        '',
        loadTable([...results, baseline], baseline),
        '',
        `Service RSS after the run: ${rss} MiB. Targets (spec): check by subject+object+linkType p99 ≤ 5 ms; check or list by subject alone p99 ≤ 10 ms.`,
      ].join('\n');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
