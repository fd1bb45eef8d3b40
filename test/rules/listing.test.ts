import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { listRules } from '../../src/rules/listing.js';
import { normaliseListingSyntax } from '../../src/rules/listing-params.js';
import { SORT_PROPERTIES } from '../../src/rules/listing-terms.js';
import { insertRules } from '../../src/rules/repository.js';
import type { Rule } from '../../src/rules/rule.js';
import { NEW_RULE_META } from '../../src/rules/rule-rows.js';
import type { ListingQuery } from '../../src/rules/schemas.js';
import { createStudio } from '../../src/studios/service.js';
import { build, engines, freshStore, skipReason } from '../helpers/app.js';
import { createRule, type RuleJson, studioWithToken } from './api.js';
import { content, ruleBody } from './fixtures.js';
import { referenceListing } from './listing-reference.js';

const instant = fc
  .date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2027-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** A rule whose live content is absent, equal to staging, or a different edit of it. */
const storedRule = fc
  .record({
    staging: ruleBody,
    edit: fc.option(ruleBody, { nil: undefined }),
    live: fc.constantFrom('none', 'same', 'edited'),
    contentType: fc.constantFrom('RULE', 'QUERY_REWRITE'),
    created: instant,
    modified: instant,
    by: fc.constantFrom('client:a', 'client:b'),
    groups: fc.array(fc.constantFrom('g1', 'g2'), { maxLength: 2 }),
  })
  .map(({ staging, edit, live, contentType, created, modified, by, groups }) => {
    const stagingContent = content({ ...staging, groups });
    const edited = edit
      ? content({ ...staging, name: edit.name, tags: edit.tags, conditions: edit.conditions })
      : stagingContent;
    return {
      stagingContent,
      liveContent: live === 'none' ? null : live === 'same' ? stagingContent : edited,
      contentType: contentType as Rule['contentType'],
      // Created no later than modified; ISO instants sort as text.
      created: [created, modified].sort()[0]!,
      modified: [created, modified].sort()[1]!,
      by,
    };
  });

const list = (values: string[]) => fc.subarray(values, { minLength: 1, maxLength: 2 });
const sortKey = fc
  .tuple(fc.constantFrom(...SORT_PROPERTIES), fc.constantFrom('', ',asc', ',DESC'))
  .map(([property, direction]) => `${property}${direction}`);

const listingQuery = fc.record(
  {
    tags: list(['laptop', 'Laptops', 'sale', 'TV']).map((tags) => tags.join(',')),
    groups: list(['g1', 'g2']),
    types: list(['blockList', 'PINNED', 'redirect', 'boostlist']),
    publishState: fc.constantFrom('DRAFT', 'PUBLISHED', 'PUBLISHED_WITH_DRAFT_EDITS'),
    published: fc.constantFrom('true', 'false'),
    searchQuery: fc.constantFrom('lap', 'laptops', 'ecr', 'tv sale', 'p1', 'https'),
    activeDateStart: instant,
    activeDateEnd: instant,
    expirationDateStart: instant,
    lastModifiedEnd: instant,
    creationDateStart: instant,
    contentType: fc.constantFrom('RULE', 'QUERY_REWRITE'),
    sort: fc.array(sortKey, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const targetedQuery = fc.record({
  targetedDocumentId: fc.constantFrom('P1', 'P2', 'P4'),
  targetedDocumentFieldName: fc.constantFrom('id', 'sku'),
});

for (const engine of engines) {
  describe(`rules listing on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('pages through exactly the rules a brute-force reference finds, in its order', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      await fc.assert(
        fc.asyncProperty(
          fc.array(storedRule, { minLength: 0, maxLength: 25 }),
          fc.array(fc.oneof({ weight: 4, arbitrary: listingQuery }, targetedQuery), {
            minLength: 1,
            maxLength: 4,
          }),
          fc.integer({ min: 1, max: 7 }),
          async (drawn, queries, size) => {
            const studioId = `s${randomUUID().slice(0, 8)}`;
            await createStudio(db, { id: studioId, name: studioId }, new Date());
            const rules: Rule[] = drawn.map((r) => ({
              id: randomUUID(),
              studioId,
              externalId: null,
              contentType: r.contentType,
              migratedId: null,
              staging: r.stagingContent,
              live: r.liveContent,
              createdBy: r.by,
              creationDate: r.created,
              lastModifiedBy: r.by === 'client:a' ? 'client:b' : 'client:a',
              lastModified: r.modified,
            }));
            await insertRules(
              db,
              rules.map((rule) => ({ rule, meta: { ...NEW_RULE_META } })),
            );
            for (const query of queries) {
              const expected = referenceListing(rules, query);
              const seen: string[] = [];
              for (let page = 0; page <= Math.ceil(expected.length / size); page++) {
                // The query as the route's schema passes it on.
                const answer = await listRules(db, studioId, {
                  ...(normaliseListingSyntax(query) as ListingQuery),
                  page,
                  size,
                });
                assert.equal(answer.page.totalElements, expected.length);
                assert.equal(answer.page.totalPages, Math.ceil(expected.length / size));
                seen.push(...answer.content.map((rule) => rule.id));
              }
              assert.deepEqual(seen, expected, JSON.stringify(query));
            }
          },
        ),
        { numRuns: engine === 'postgres' ? 15 : 40 },
      );
    });

    test('filters over large sets answer as the reference does, whichever way they are read', async (t) => {
      // The sets here mostly hold more than 2,000 rules, the most the listing reads whole, so
      // on PostgreSQL it picks by the sets' sizes and what they share: the shared rules read
      // from the sets alone (few guessed, few found), the sort's index walked (many guessed),
      // or the shared rules read and found too many (few guessed, many found). SQLite walks.
      // One large set is walked on both; on PostgreSQL its checks must stay lookups per rule.
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db } = fresh.store;
      const studioId = 'big';
      await createStudio(db, { id: studioId, name: studioId }, new Date());
      const rules: Rule[] = Array.from({ length: 6000 }, (_, i) => {
        const tags = [i < 4500 ? 'a' : 'z', i % 2 === 0 ? 'b' : 'y', i < 2500 ? 'c' : 'x'];
        const type = i < 2500 ? 'buryList' : i % 2 === 1 ? 'boostList' : 'blockList';
        const staging = content({
          type,
          name: `rule ${i % 97}`,
          tags,
          groups: i % 5 === 0 ? ['g2'] : ['g1'],
          fieldName: 'id',
          fieldValues: [`P${i}`],
          ...(type === 'blockList' ? {} : { boost: 2 }),
        });
        const at = new Date(Date.UTC(2026, 0, 1) + ((i * 7919) % 6000) * 60_000).toISOString();
        return {
          id: `r${String(i).padStart(5, '0')}`,
          studioId,
          externalId: null,
          contentType: 'RULE',
          migratedId: null,
          staging,
          live: i % 3 === 0 ? staging : null,
          createdBy: 'client:a',
          creationDate: at,
          lastModifiedBy: 'client:a',
          lastModified: at,
        };
      });
      await insertRules(
        db,
        rules.map((rule) => ({ rule, meta: { ...NEW_RULE_META } })),
      );
      // As the database's own statistics job would have by now: on tables it has never
      // measured, PostgreSQL plans these joins as if each set held one row (see the notes).
      for (const table of ['rule', 'rule_facet']) await sql`analyze ${sql.table(table)}`.execute(db);
      const queries: Array<Record<string, string>> = [
        // Set sizes: tags a 4,500, b 3,000, c 2,500; types buryList 2,500, boostList and
        // blockList 1,750 each; groups g1 4,800; 6,000 rules in all.
        { tags: 'a', types: 'boostList,buryList' }, // 3,500 shared, about 3,200 guessed
        { tags: 'b', types: 'boostList,buryList', published: 'false', sort: 'name,desc' },
        { tags: 'c', types: 'buryList,blockList' }, // 2,500 shared, about 1,800 guessed
        { tags: 'c', types: 'buryList,blockList', groups: 'g1' }, // 2,000 shared, 1,400 guessed
        { tags: 'c', types: 'buryList,blockList', groups: 'g1', publishState: 'PUBLISHED', sort: 'name' },
        { tags: 'c', types: 'boostList,blockList', groups: 'g1' }, // none shared
        { tags: 'b,y', types: 'boostList', sort: 'name,asc' }, // a set of 1,750 drives
        // One large set: near pages walk the sort's index with a lookup per rule, far ones
        // (past about set² / rules) read the set whole.
        { tags: 'a' },
        { tags: 'c', sort: 'name' },
        { tags: 'b', published: 'true', sort: 'creationDate,asc' },
      ];
      for (const query of queries) {
        const expected = referenceListing(rules, query);
        for (const [page, size] of [
          [0, 20],
          [3, 7],
          [0, 1000],
          [Math.floor(expected.length / 50), 50],
          [10_000, 20],
        ] as const) {
          const answer = await listRules(db, studioId, {
            ...(normaliseListingSyntax(query) as ListingQuery),
            page,
            size,
          });
          const label = `${JSON.stringify(query)} page ${page} size ${size}`;
          assert.equal(answer.page.totalElements, expected.length, label);
          assert.deepEqual(
            answer.content.map((rule) => rule.id),
            expected.slice(page * size, (page + 1) * size),
            label,
          );
        }
      }
    });

    test('answers each parameter on rules whose staging and live differ', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const get = async (query: string) => {
        const response = await app.inject({ url: `/em-rules?${query}`, headers: access.headers });
        assert.equal(response.statusCode, 200, response.body);
        return response.json<{ content: RuleJson[]; page: Record<string, number> }>();
      };
      const names = async (query: string) => (await get(query)).content.map((rule) => rule.name);
      const put = (rule: RuleJson, body: object) =>
        app.inject({
          method: 'PUT',
          url: `/em-rules/${rule.id}`,
          headers: access.headers,
          payload: { ...rule, ...body },
        });
      const publish = (rule: RuleJson) =>
        app.inject({ method: 'POST', url: `/em-rules/${rule.id}/publish`, headers: access.headers });

      const sale = await createRule(app, access, {
        type: 'blockList',
        name: 'Laptop sale',
        description: 'Boost discounted laptops',
        tags: ['sale'],
        fieldName: 'id',
        fieldValues: ['P1'],
        precedence: 5,
      });
      await publish(sale);
      await put(sale, { tags: ['clearance'], name: 'Clearance' });
      const pin = await createRule(app, access, {
        type: 'pinned',
        name: 'Pin phones',
        description: 'laptop accessories pinned',
        pinnedValues: [{ value: 'P1', position: 1 }],
        conditions: { effectiveStart: '2026-01-01T00:00:00Z', effectiveEnd: '2026-02-01T00:00:00Z' },
      });
      await createRule(app, access, {
        type: 'banner',
        name: 'Summer banner',
        bannerUrl: 'https://cdn.example/summer.png',
        groups: ['seasonal'],
        contentType: 'QUERY_REWRITE',
      });

      assert.deepEqual(await names('tags=sale'), ['Clearance'], 'live still has the tag');
      assert.deepEqual(await names('tags=clearance&tags=nothing'), ['Clearance']);
      assert.deepEqual(await names('searchQuery=LAPT&sort=name'), ['Clearance', 'Pin phones']);
      assert.deepEqual(await names('searchQuery=lapt&sort=textSearchRelevance'), ['Clearance', 'Pin phones']);
      assert.deepEqual(await names('types=PINNED,banner&sort=name,desc'), ['Summer banner', 'Pin phones']);
      assert.deepEqual(await names('publishState=PUBLISHED_WITH_DRAFT_EDITS'), ['Clearance']);
      assert.deepEqual(await names('published=false&sort=name'), ['Pin phones', 'Summer banner']);
      assert.deepEqual(await names('groups=seasonal'), ['Summer banner']);
      assert.deepEqual(await names('contentType=QUERY_REWRITE'), ['Summer banner']);
      assert.deepEqual(await names('activeDateStart=2026-03-01T00:00:00Z&sort=name'), [
        'Clearance',
        'Summer banner',
      ]);
      assert.deepEqual(await names('expirationDateStart=2026-01-15&expirationDateEnd=2026-02-15'), [
        'Pin phones',
      ]);
      assert.deepEqual(await names('targetedDocumentId=P1&sort=precedence,desc'), [
        'Clearance',
        'Pin phones',
      ]);
      assert.deepEqual(await names('targetedDocumentId=P1&targetedDocumentFieldName=sku'), []);
      assert.deepEqual(await names('sort=lastModified,asc'), ['Clearance', 'Pin phones', 'Summer banner']);
      const past = await get('page=5&size=2');
      assert.deepEqual(past.content, []);
      assert.deepEqual(past.page, { size: 2, number: 5, totalElements: 3, totalPages: 2 });

      const withExtras = await get(
        `targetedDocumentId=P1&fields=CONFLICTS,TARGETED_DOCUMENTS,IS_PENDING_BULK_OPERATION,FUSION_SYNC_STATUS&sort=name`,
      );
      const [clearance, phones] = withExtras.content as [RuleJson, RuleJson];
      assert.deepEqual(clearance.targetedDocuments, [{ fieldName: 'id', value: 'P1' }]);
      assert.equal(clearance.isPendingBulkOperation, false);
      assert.equal((clearance.stagingSyncStatus as { status: string }).status, 'NOT_CONFIGURED');
      assert.deepEqual(
        (phones.conflicts as Array<{ id: string }>).map((c) => c.id),
        [sale.id],
      );
      assert.equal(pin.publishState, 'DRAFT');

      const errors: Array<[string, string]> = [
        ['page=-1', 'page must be an integer ≥ 0'],
        ['page=x', 'page must be an integer ≥ 0'],
        ['size=0', 'size must be an integer from 1 to 1000'],
        ['size=1001', 'size must be an integer from 1 to 1000'],
        ['sort=textSearchRelevance', 'sort textSearchRelevance needs a searchQuery'],
        [
          'searchQuery=x&sort=textSearchRelevance&sort=name',
          'sort textSearchRelevance cannot be combined with other sorts',
        ],
        [
          'targetedDocumentId=P1&tags=sale',
          'targetedDocumentId cannot be combined with other filters (tags)',
        ],
        ['types=nope', 'types must be one of blockList, boostList, buryList, pinned, redirect, banner'],
        ['sort=color', 'sort property must be one of'],
        ['activeDateStart=yesterday', 'activeDateStart must be an ISO 8601 date'],
        ['fields=EVERYTHING', 'fields must be among'],
      ];
      for (const [query, message] of errors) {
        const response = await app.inject({ url: `/em-rules?${query}`, headers: access.headers });
        assert.equal(response.statusCode, 400, query);
        const body = response.json();
        assert.ok(body.message.startsWith(message), `${query}: ${body.message}`);
        assert.equal(body.path, '/em-rules');
        assert.equal(body.error, 'Bad Request');
        assert.ok(body.timestamp && body.status === 400);
      }
    });

    test('ranks name matches above description matches', async (t) => {
      const { app } = await build(t, engine);
      const access = await studioWithToken(app, 'shop');
      const body = { type: 'redirect', url: 'https://shop.example/x' };
      await createRule(app, access, { ...body, name: 'Other', description: 'about monitors' });
      await createRule(app, access, { ...body, name: 'Monitors', description: 'x' });
      await createRule(app, access, { ...body, name: 'Unrelated', description: 'y' });
      const response = await app.inject({
        url: '/em-rules?searchQuery=monit&sort=textSearchRelevance',
        headers: access.headers,
      });
      assert.deepEqual(
        response.json().content.map((rule: RuleJson) => rule.name),
        ['Monitors', 'Other'],
      );
    });
  });
}
