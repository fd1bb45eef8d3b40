// The link graphs of the links scenario: generated links seeded straight into a store, or
// written through the API as a user's tools write them; and the check requests sent to them.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { BenchStore } from './engines.js';
import { seededRandom } from './lib.js';

const OBJECTS = 200_003; // prime: (i * 7919) mod OBJECTS never repeats for one subject
const storedTypes = ['dependsOn', 'isPartOf', 'inContextOf', 'relatesTo'];
const reverse: Record<string, string> = {
  dependsOn: 'supports',
  isPartOf: 'hasPart',
  inContextOf: 'hasContext',
};
const CREATED_AT = '2026-01-01T00:00:00.000Z';

export interface GeneratedLink {
  subject: string;
  object: string;
  linkType: string;
}

/** The i-th generated link of a set of `links`, in its stored direction (about 10 per subject). */
export function link(i: number, links: number): GeneratedLink {
  return {
    subject: `component:${i % (links / 10)}`,
    object: `resource:${(i * 7919) % OBJECTS}`,
    linkType: storedTypes[i % storedTypes.length]!,
  };
}

/** The same link seen from its object: the question a check in the reverse direction asks. */
export function reversed(l: GeneratedLink): GeneratedLink {
  return { subject: l.object, object: l.subject, linkType: reverse[l.linkType] ?? l.linkType };
}

/** The i-th link of a set written through the API, in its stored direction: a reversible type. */
export function reversibleLink(i: number, links: number): GeneratedLink {
  return { ...link(i, links), linkType: storedTypes[i % 3]! };
}

const q = encodeURIComponent;

/** Check requests of random links of a set (seeded), each link asked as `ask` turns it. */
export function checkPaths(
  links: number,
  seed: number,
  linkOf: (i: number, links: number) => GeneratedLink,
  ask: (l: GeneratedLink) => GeneratedLink = (l) => l,
): () => string {
  const random = seededRandom(seed);
  return () => {
    const l = ask(linkOf(Math.floor(random() * links), links));
    return `/api/links/check?subject=${q(l.subject)}&object=${q(l.object)}&linkType=${l.linkType}`;
  };
}

/** Writes the links straight into the migrated store (set-up, not measured); answers ms. */
export async function seed(store: BenchStore, links: number): Promise<number> {
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
        insert.run(l.subject, l.linkType, l.object);
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
          values.push(l.subject, l.linkType, l.object);
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

/**
 * Creates `links` links with `PUT /api/links`, `writers` requests in flight at a time, as an
 * integration would (no ANALYZE afterwards); answers ms.
 */
export async function writeThroughApi(
  url: string,
  headers: Record<string, string>,
  links: number,
  writers: number,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < links; i = next++) {
      const response = await fetch(`${url}/api/links`, {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/json' },
        // Every other link given from its object (`supports` …), as integrations write both.
        body: JSON.stringify(i % 2 === 0 ? reversibleLink(i, links) : reversed(reversibleLink(i, links))),
      });
      if (response.status !== 200)
        throw new Error(`PUT link ${i}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return Math.round(performance.now() - started);
}
