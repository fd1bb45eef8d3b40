import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isReversible, linkTypes, reverseOf } from '../../src/links/link-types.js';
import { checkLinks, deleteLink, type LinkFilter, listLinks, putLink } from '../../src/links/service.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';

const names = fc.constantFrom('a', 'b', 'c', 'd');
const link = fc
  .record({ subject: names, object: names, linkType: fc.constantFrom(...linkTypes) })
  .map((l) => (l.linkType === 'self' ? { ...l, object: l.subject } : l));
const page = { limit: 10000, offset: 0 };
const now = new Date('2026-01-01T00:00:00Z');
const key = (l: { subject: string; object: string; linkType: string }) =>
  `${l.subject}|${l.linkType}|${l.object}`;

// Asked before any suite starts: SQLite's synchronous runs would otherwise hold up the
// PostgreSQL probe past its connection timeout.
const skips = await Promise.all(engines.map(skipReason));

for (const [i, engine] of engines.entries()) {
  describe(`link reversibility on ${engine}`, { skip: skips[i] }, () => {
    test('finds every stored link both ways; the reverse of a reversible link answers the same; lists never repeat', async () => {
      const fresh = await freshStore(engine);
      const db = fresh.store.db;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(link, { maxLength: 12 }),
            fc.array(link, { maxLength: 8 }),
            async (stored, probes) => {
              await db.deleteFrom('link').execute();
              for (const l of stored) await putLink(db, l, now);
              // A check that answered false for everything would pass the comparison below.
              for (const l of stored) {
                assert.equal(await checkLinks(db, l), true, `stored ${key(l)} not found`);
                const reverse = reverseOf(l.linkType);
                if (!reverse) continue;
                const backward = { subject: l.object, object: l.subject, linkType: reverse };
                assert.equal(await checkLinks(db, backward), true, `reverse of ${key(l)} not found`);
              }
              for (const probe of probes) {
                const reverse = reverseOf(probe.linkType);
                if (!reverse) continue;
                const forward = await checkLinks(db, probe);
                const backward = await checkLinks(db, {
                  subject: probe.object,
                  object: probe.subject,
                  linkType: reverse,
                });
                assert.equal(backward, forward);
              }
              const filters: LinkFilter[] = [
                {},
                { subject: 'a' },
                { object: 'b' },
                { linkType: 'supports' },
                { subject: 'c', object: 'c' },
              ];
              for (const filter of filters) {
                const keys = (await listLinks(db, filter, page)).map(key);
                assert.equal(new Set(keys).size, keys.length, `repeated in ${JSON.stringify(filter)}`);
              }
            },
          ),
          { numRuns: engine === 'postgres' ? 25 : 60 },
        );
      } finally {
        await fresh.close();
      }
    });

    test('deleting through either direction removes both', async () => {
      const fresh = await freshStore(engine);
      const db = fresh.store.db;
      try {
        await fc.assert(
          fc.asyncProperty(
            link.filter((l) => isReversible(l.linkType)),
            fc.boolean(),
            async (l, viaReverse) => {
              await db.deleteFrom('link').execute();
              await putLink(db, l, now);
              const reverse = { subject: l.object, object: l.subject, linkType: reverseOf(l.linkType)! };
              assert.equal(await checkLinks(db, l), true, 'the stored link is found');
              assert.equal(await checkLinks(db, reverse), true, 'its reverse is found');
              await deleteLink(db, viaReverse ? reverse : l);
              assert.equal(await checkLinks(db, l), false);
              assert.equal(await checkLinks(db, reverse), false);
            },
          ),
          { numRuns: 30 },
        );
      } finally {
        await fresh.close();
      }
    });
  });
}
