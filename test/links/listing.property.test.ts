import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { linkTypes } from '../../src/links/link-types.js';
import {
  checkLinks,
  directedLinks,
  type Link,
  type LinkFilter,
  listLinks,
  putLink,
} from '../../src/links/service.js';
import { engines, freshStore, skipReason } from '../helpers/app.js';

// Listings are compiled once per shape and bound per request: these properties hold for
// every shape (directions, conditions, app scope, exclusivity, paging), so a value bound to
// the wrong place of a shape shows as a listed link that does not match its filter.
const names = fc.constantFrom('a', 'b', 'c', 'app:shop');
const link = fc
  .record({ subject: names, object: names, linkType: fc.constantFrom(...linkTypes) })
  .map((l) => (l.linkType === 'self' ? { ...l, object: l.subject } : l));
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const filter: fc.Arbitrary<LinkFilter> = fc.record({
  subject: maybe(fc.oneof(names, fc.constant('*'))),
  object: maybe(fc.oneof(names, fc.constant('*'))),
  linkType: maybe(fc.constantFrom(...linkTypes, '*' as const)),
});
const app = maybe(fc.constant('shop'));
const all = { limit: 10000, offset: 0 };
const now = new Date('2026-01-01T00:00:00Z');
const key = (l: Link) => `${l.subject}|${l.linkType}|${l.object}`;
const matches = (given: string | undefined, value: string) =>
  given === undefined || given === '*' || given === value;

const skips = await Promise.all(engines.map(skipReason));

for (const [i, engine] of engines.entries()) {
  describe(`link listings on ${engine}`, { skip: skips[i] }, () => {
    test('list only what matches, everything a check finds, and the same links page by page', async () => {
      const fresh = await freshStore(engine);
      const db = fresh.store.db;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(link, { maxLength: 12 }),
            filter,
            app,
            fc.integer({ min: 1, max: 4 }),
            async (stored, wanted, scope, size) => {
              await db.deleteFrom('link').execute();
              for (const l of stored) await putLink(db, l, now);
              const listed = await listLinks(db, wanted, all, scope);
              for (const l of listed) {
                assert.ok(
                  matches(wanted.subject, l.subject) &&
                    matches(wanted.object, l.object) &&
                    matches(wanted.linkType, l.linkType),
                  `${key(l)} listed for ${JSON.stringify(wanted)}`,
                );
                assert.equal(await checkLinks(db, l, scope), true, `${key(l)} listed but not found`);
              }
              assert.equal(listed.length > 0, await checkLinks(db, wanted, scope));
              const paged: Link[] = [];
              for (let offset = 0; offset < listed.length + size; offset += size) {
                paged.push(...(await listLinks(db, wanted, { limit: size, offset }, scope)));
              }
              assert.deepEqual(paged.map(key), listed.map(key));
            },
          ),
          { numRuns: engine === 'postgres' ? 40 : 100 },
        );
      } finally {
        await fresh.close();
      }
    });

    test('keep, among outgoing links, exactly those whose object nothing else owns', async () => {
      const fresh = await freshStore(engine);
      const db = fresh.store.db;
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(link, { maxLength: 12 }), names, app, async (stored, owner, scope) => {
            await db.deleteFrom('link').execute();
            for (const l of stored) await putLink(db, l, now);
            const rows = await db.selectFrom('link').select(['subject', 'link_type', 'object']).execute();
            const ownedElsewhere = (object: string) =>
              rows.some(
                (r) =>
                  (r.link_type === 'dependsOn' && r.object === object && r.subject !== owner) ||
                  ((r.link_type === 'isPartOf' || r.link_type === 'inContextOf') &&
                    r.subject === object &&
                    r.object !== owner),
              );
            const outgoing = await directedLinks(db, owner, false, all, scope);
            const exclusive = await directedLinks(db, owner, true, all, scope);
            assert.deepEqual(exclusive.map(key), outgoing.filter((l) => !ownedElsewhere(l.object)).map(key));
            for (const l of outgoing) assert.equal(l.subject, owner);
          }),
          { numRuns: engine === 'postgres' ? 40 : 100 },
        );
      } finally {
        await fresh.close();
      }
    });
  });
}
