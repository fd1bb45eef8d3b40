// The query endpoint against the real SolrCloud, as a property: for random sets of published
// block and pin rules and random shoppers' queries made of the catalog's words, the ids
// searchdeck answers are what Solr answers directly to the same query without the rules, with
// the blocked documents removed and the pinned ones (those that exist and are not blocked) put
// first in their order. Which rules fire and what they merge to comes from the brute-force
// reference of the evaluation tests; what Solr makes of the parameters is Solr's own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { BRANDS, CATEGORIES, type Product, sampleCatalog } from '../../src/demo/catalog.js';
import type { EvaluatedRule } from '../../src/evaluation/evaluation.js';
import { referenceEffect, referenceFired } from '../evaluation/reference.js';
import { call } from '../helpers/api.js';
import { build } from '../helpers/app.js';
import { selectDirect, solrSkipReason, testSolr } from '../helpers/solr.js';
import { publishedRule, type StudioAccess } from '../rules/api.js';
import { content } from '../rules/fixtures.js';
import { shopOnTestSolr } from './solr-shop.js';

const APP = 'shop';
const PROFILE = 'web';
const ROWS = 20;
/** How many rule sets are published, each with 3 to 5 queries. */
const RULE_SETS = 15;
/** The profile's sort: score first, so that elevation applies, then the id for the ties. */
const PROFILE_SORT = 'score desc,id asc';
/** The shopper's sorts: none (the profile's), or one of their own, each ending on the id. */
const SHOPPER_SORTS = [undefined, 'price asc,id asc', 'popularity desc,id asc'] as const;
/** Ids no product has: pins of them elevate nothing, blocks of them remove nothing. */
const ABSENT_IDS = ['P09999', 'Q,1'];
/** Words of no product: queries of them find nothing (pins still show). */
const ABSENT_WORDS = ['zebra', 'submarine'];

/**
 * How many of Solr's ids the reference asks for first (all 3,000 cost a second a query on a
 * busy machine); all of them only when the blocks leave fewer than a page.
 */
const DIRECT_ROWS = 200;

type Doc = Pick<Product, 'id' | 'brand' | 'category'>;

interface Direct {
  docs: Doc[];
  numFound: number;
}

describe('the query endpoint against Solr itself, for random rules and queries', {
  skip: solrSkipReason(),
}, () => {
  test('answers the ids Solr answers without the rules, blocked ones removed and pins first', async (t) => {
    const solr = await testSolr();
    const catalog = new Map<string, Product>();
    for (const product of sampleCatalog(solr.catalogSize)) catalog.set(product.id, product);
    // The catalog's own words (brands, styles, colours, category nouns), as shoppers type them.
    const words = [...new Set([...catalog.values()].flatMap((p) => p.name.toLowerCase().split(' ')))].sort();

    // Storage plays no part here (rules are served from each node's memory): SQLite is enough.
    const { app } = await build(t, 'sqlite');
    const { access, key } = await shopOnTestSolr(
      app,
      solr,
      {
        id: PROFILE,
        defaults: { rows: ROWS, fl: 'id', sort: PROFILE_SORT },
        allowedParams: ['start', 'sort'],
        logSearches: false,
      },
      10_000,
    );

    // Solr's answer to a query without rules depends on the query and the sort only: asked
    // once for its first DIRECT_ROWS ids, and for all of them when blocks leave too few of those.
    const spent = { rules: 0, searchdeck: 0, direct: 0 };
    const directAnswers = new Map<string, Promise<Direct>>();
    const direct = (q: string, sort: string, rows: number) => {
      const cacheKey = `${q}\n${sort}\n${rows}`;
      let answer = directAnswers.get(cacheKey);
      if (!answer) {
        answer = directly(q, sort, rows);
        directAnswers.set(cacheKey, answer);
      }
      return answer;
    };
    async function directly(q: string, sort: string, rows: number): Promise<Direct> {
      const asked = performance.now();
      const { status, body } = await selectDirect(solr, {
        q: q.trim() === '' ? '*:*' : q,
        sort,
        fl: 'id',
        rows: String(rows),
      });
      assert.equal(status, 200, JSON.stringify(body));
      const response = body.response as { numFound: number; docs: Array<{ id: string }> };
      // The collection holds the catalog: a document's brand and category are its product's.
      const docs = response.docs.map(({ id }) => catalog.get(id)!);
      assert.ok(docs.every((doc) => doc !== undefined));
      spent.direct += performance.now() - asked;
      return { docs, numFound: response.numFound };
    }

    let runs = 0;
    let queriesSent = 0;
    let firedAny = 0;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(scenario(words, catalog), async ({ rules: bodies, queries }) => {
        runs++;
        const rules: EvaluatedRule[] = [];
        try {
          const publishing = performance.now();
          for (const body of bodies) {
            const rule = await publishedRule(app, access, body);
            rules.push({ id: rule.id, creationDate: rule.creationDate as string, content: content(body) });
          }
          spent.rules += performance.now() - publishing;
          for (const { q, sort, start } of queries) {
            queriesSent++;
            const search = new URLSearchParams({ q });
            if (sort !== undefined) search.set('sort', sort);
            if (start > 0) search.set('start', String(start));
            const asked = performance.now();
            const answer = await call(
              app,
              'GET',
              `/api/apps/${APP}/query/${PROFILE}?${search}`,
              undefined,
              `Bearer ${key}`,
            );
            assert.equal(answer.status, 200, JSON.stringify(answer.body));
            spent.searchdeck += performance.now() - asked;

            const fired = referenceFired(rules, {
              q,
              at: new Date(),
              segments: [],
              queryProfiles: [PROFILE],
              filters: [],
              explain: false,
            });
            if (fired.length > 0) firedAny++;
            const effect = referenceEffect(fired);
            const blocked = (doc: Doc) =>
              effect.blocked.some(({ fieldName, values }) =>
                values.includes(doc[fieldName as keyof Doc] ?? ''),
              );
            // Solr elevates a pinned id that is a document's and passes the filters; the others
            // elevate nothing (verified against Solr: see docs/query.md).
            const pinned = effect.pins
              .map(({ value }) => catalog.get(value))
              .filter((doc): doc is Product => doc !== undefined && !blocked(doc))
              .map((doc) => doc.id);
            const page = async (rows: number) => {
              const solrs = await direct(q, sort ?? PROFILE_SORT, rows);
              const rest = solrs.docs.filter((doc) => !blocked(doc) && !pinned.includes(doc.id));
              return { ...solrs, rest: rest.map((doc) => doc.id) };
            };
            let reference = await page(DIRECT_ROWS);
            if (reference.rest.length < start + ROWS && reference.docs.length < reference.numFound)
              reference = await page(solr.catalogSize);
            const expected = [...pinned, ...reference.rest];

            const what = `q=${JSON.stringify(q)} sort=${sort ?? '(profile)'} start=${start} effect=${JSON.stringify(
              { blocked: effect.blocked, pins: effect.pins },
            )}`;
            assert.deepEqual(
              answer.body.fusion.rules.map((r: { id: string }) => r.id),
              fired.map((r) => r.id),
              `the rules fired, ${what}`,
            );
            assert.deepEqual(
              answer.body.response.docs.map((d: { id: string }) => d.id),
              expected.slice(start, start + ROWS),
              `the ids, ${what}`,
            );
            const { numFound } = answer.body.response;
            if (reference.docs.length === reference.numFound) {
              assert.equal(numFound, expected.length, `numFound, ${what}`);
            } else {
              // Not every match was fetched: what was is found, and nothing but matches and pins.
              assert.ok(numFound >= expected.length, `numFound ${numFound} >= ${expected.length}, ${what}`);
              assert.ok(numFound <= reference.numFound + pinned.length, `numFound ${numFound}, ${what}`);
            }
          }
        } finally {
          await removeAll(app, access, rules);
        }
      }),
      { numRuns: RULE_SETS, includeErrorInReport: true },
    );
    t.diagnostic(
      `${runs} rule sets, ${queriesSent} queries (${firedAny} with a rule fired), ${directAnswers.size} direct answers: ${ms(performance.now() - started)} ms in all, ${ms(spent.rules)} publishing, ${ms(spent.searchdeck)} in searchdeck's queries, ${ms(spent.direct)} asking Solr directly`,
    );
    // The property is only as good as its rules' firing: most queries should meet some.
    assert.ok(firedAny >= queriesSent / 3, `rules fired for ${firedAny} of ${queriesSent} queries`);
  });
});

const ms = (duration: number) => Math.round(duration);

/** Unpublishes and deletes the rules of a run, so that the next one starts with none live. */
async function removeAll(app: FastifyInstance, access: StudioAccess, rules: EvaluatedRule[]) {
  for (const { id } of rules) {
    const unpublished = await app.inject({
      method: 'POST',
      url: `/em-rules/${id}/unpublish`,
      headers: access.headers,
    });
    assert.equal(unpublished.statusCode, 200, unpublished.body);
    const deleted = await app.inject({ method: 'DELETE', url: `/em-rules/${id}`, headers: access.headers });
    assert.ok(deleted.statusCode < 300, deleted.body);
  }
}

interface Query {
  q: string;
  sort: (typeof SHOPPER_SORTS)[number];
  start: number;
}

/**
 * A few shoppers' queries and a rule set aimed at them: conditions made of the queries' words,
 * blocked and pinned ids among the products those words find (and a few that no product has).
 */
function scenario(words: string[], catalog: Map<string, Product>) {
  const word = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...words) },
    { weight: 1, arbitrary: fc.constantFrom(...ABSENT_WORDS) },
  );
  const typed = fc
    .tuple(fc.array(word, { minLength: 0, maxLength: 3 }), fc.boolean())
    .map(([ws, capitalised]) =>
      ws.map((w) => (capitalised ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join(' '),
    );
  const query: fc.Arbitrary<Query> = fc.record({
    q: typed,
    sort: fc.constantFrom(...SHOPPER_SORTS),
    start: fc.constantFrom(0, 0, 0, 5),
  });
  return fc.array(query, { minLength: 3, maxLength: 5 }).chain((queries) => {
    const queryWords = [...new Set(queries.flatMap(({ q }) => q.toLowerCase().split(' ')))].filter(
      (w) => w !== '',
    );
    // The first products (by id, which breaks the many ties of score) whose name holds a
    // query's word: those most likely in the first page.
    const ids = [
      ...new Set([
        ...queryWords.flatMap((w) =>
          [...catalog.values()]
            .filter((p) => p.name.toLowerCase().split(' ').includes(w))
            .slice(0, 4)
            .map((p) => p.id),
        ),
        'P00001',
        'P00002',
        'P00003',
      ]),
    ];
    const id = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...ids) },
      { weight: 1, arbitrary: fc.constantFrom(...ABSENT_IDS) },
    );
    const phrases = queries.map(({ q }) => q).filter((q) => q.trim() !== '');
    const conditions = fc.oneof(
      fc.constant({}),
      phrases.length === 0
        ? fc.constant({})
        : fc.record({
            queries: fc.subarray(phrases, { minLength: 1, maxLength: Math.min(2, phrases.length) }),
          }),
      queryWords.length === 0
        ? fc.constant({})
        : fc
            .record({
              queries: fc.array(
                fc.subarray(queryWords, { minLength: 1, maxLength: Math.min(2, queryWords.length) }),
                {
                  minLength: 1,
                  maxLength: 2,
                },
              ),
              queryMatch: fc.constant('contains'),
            })
            .map(({ queries: lists, queryMatch }) => ({
              queries: lists.map((list) => list.join(' ')),
              queryMatch,
            })),
    );
    const blockList = fc.oneof(
      fc.record({
        fieldName: fc.constant('id'),
        fieldValues: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        fieldName: fc.constant('brand'),
        // Values are exact: `acme` blocks no product of Acme.
        fieldValues: fc.uniqueArray(fc.constantFrom(...BRANDS, 'acme'), { minLength: 1, maxLength: 2 }),
      }),
      fc.record({
        fieldName: fc.constant('category'),
        fieldValues: fc.uniqueArray(fc.constantFrom(...CATEGORIES.map((c) => c.name)), {
          minLength: 1,
          maxLength: 2,
        }),
      }),
    );
    const pinnedValues = fc
      .tuple(
        fc.uniqueArray(id, { minLength: 1, maxLength: 3 }),
        fc.shuffledSubarray([1, 2, 3, 4, 5], { minLength: 3, maxLength: 3 }),
      )
      .map(([pinned, positions]) => pinned.map((value, i) => ({ value, position: positions[i]! })));
    const rule = fc
      .record({
        kind: fc.oneof(
          blockList.map((typed) => ({ type: 'blockList', ...typed })),
          pinnedValues.map((values) => ({ type: 'pinned', pinnedValues: values })),
        ),
        conditions,
        precedence: fc.integer({ min: 0, max: 2 }),
        queryProfiles: fc.constantFrom([], [PROFILE], ['app']),
      })
      .map(
        ({ kind, conditions: c, precedence, queryProfiles }) =>
          ({
            ...kind,
            name: `${kind.type} rule`,
            precedence,
            conditions: { ...c, queryProfiles },
          }) as Record<string, unknown>,
      );
    return fc.record({
      queries: fc.constant(queries),
      rules: fc.array(rule, { minLength: 1, maxLength: 6 }),
    });
  });
}
