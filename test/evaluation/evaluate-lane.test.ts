import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import fc from 'fast-check';
import { EVALUATE_PATH } from '../../src/evaluation/evaluate-endpoint.js';
import { adminAuth, contractTest, engines, skipReason } from '../helpers/app.js';
import { assertCounted, laneAndRouteNodes } from '../helpers/lanes.js';
import { captureLog } from '../helpers/log-capture.js';
import { wireGet } from '../helpers/raw-request.js';
import { publishedRule, type StudioAccess, studioWithToken } from '../rules/api.js';

const RULES: Array<Record<string, unknown>> = [
  {
    type: 'blockList',
    name: 'Block',
    fieldName: 'id',
    fieldValues: ['P1', 'P"2'],
    conditions: { queries: ['laptop'] },
  },
  {
    type: 'boostList',
    name: 'Boost for members',
    fieldName: 'brand',
    fieldValues: ['acme'],
    boost: 10,
    segments: ['members'],
    conditions: { queries: ['laptop'] },
  },
  {
    type: 'pinned',
    name: 'Pin',
    pinnedValues: [{ value: 'P9', position: 1 }],
    conditions: { queries: ['laptop bag'], queryMatch: 'contains' },
  },
  {
    type: 'pinned',
    name: 'Pin loses',
    pinnedValues: [{ value: 'P3', position: 1 }],
    precedence: 0,
    conditions: { queries: ['laptop bag'], queryMatch: 'contains' },
  },
  {
    type: 'redirect',
    name: 'Sale',
    url: 'https://shop.example/sale',
    conditions: { queries: ['sale'], fieldValues: [{ fieldName: 'color', values: ['red'] }] },
  },
];

/** A node with lanes and one without, the rules live before the second starts (so it loads them). */
async function twoNodes(
  t: TestContext,
  engine: (typeof engines)[number],
  loggers?: Parameters<typeof laneAndRouteNodes>[3],
) {
  const nodes = await laneAndRouteNodes(
    t,
    engine,
    async (fast) => {
      const access = await studioWithToken(fast, 'shop');
      const rewritesOnly = await studioWithToken(fast, 'outlet', ['commercestudio.rewrites']);
      for (const rule of RULES) await publishedRule(fast, access, rule);
      return { access, rewritesOnly };
    },
    loggers,
  );
  const answered = () => nodes.fast.parts.early.answered(EVALUATE_PATH);
  return { ...nodes, ...nodes.prepared, answered };
}

/** The same request to both nodes answers the same bytes. */
async function sameOnBoth(
  nodes: Awaited<ReturnType<typeof twoNodes>>,
  target: string,
  headers: Record<string, string>,
): Promise<string> {
  const expected = await wireGet(nodes.routePort, target, headers);
  assert.equal(
    await wireGet(nodes.fastPort, target, headers),
    expected,
    `${target} ${JSON.stringify(headers)}`,
  );
  return expected;
}

const bearer = (access: StudioAccess) => ({
  authorization: access.headers.authorization,
  'x-request-id': 'trace-1',
});

for (const engine of engines) {
  describe(`evaluations before routing on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract(
      'answer byte for byte what the route answers, and are counted in the request metrics',
      async (t) => {
        const nodes = await twoNodes(t, engine);
        const queries = [
          'q=laptop',
          'q=%20LAPTOP%20',
          'q=laptop&explain=true',
          'q=laptop&explain=false',
          'q=laptop&segment=members',
          'q=laptop&segment=guests&segment=members&queryProfile=main',
          'q=my+laptop+bag&explain=true',
          'q=sale&filter=color:red',
          'q=sale&filter=color%3Ablue&filter=size:xl',
          'q=',
          'q=nothing+fires',
          'explain=true&q=laptop',
        ];
        const before = nodes.answered();
        for (const query of queries) {
          const answer = await sameOnBoth(nodes, `${EVALUATE_PATH}?${query}`, bearer(nodes.access));
          assert.match(answer, /^HTTP\/1\.1 200 /, query);
        }
        assert.equal(nodes.answered() - before, queries.length);
        assert.equal(nodes.route.parts.early.answered(EVALUATE_PATH), 0);
        await assertCounted(nodes.fast, EVALUATE_PATH, queries.length);
      },
    );

    contract(
      'answer every other request exactly as the route does, refusals by the route itself',
      async (t) => {
        const nodes = await twoNodes(t, engine);
        const headers = bearer(nodes.access);
        const cases: Array<[string, Record<string, string>]> = [
          [`${EVALUATE_PATH}?q=laptop`, {}],
          [`${EVALUATE_PATH}?q=laptop`, { authorization: 'Bearer not.a.token' }],
          [`${EVALUATE_PATH}?q=laptop`, { authorization: `Basic ${adminAuth.slice(6)}` }],
          [`${EVALUATE_PATH}?q=laptop`, bearer(nodes.rewritesOnly)],
          [`${EVALUATE_PATH}?q=laptop`, { ...headers, host: 'outlet.search.example' }],
          [`${EVALUATE_PATH}?q=laptop`, { ...headers, host: 'unknown.search.example' }],
          [`${EVALUATE_PATH}`, headers],
          [`${EVALUATE_PATH}?q=a&q=b`, headers],
          [`${EVALUATE_PATH}?q=laptop&at=2026-01-01T00:00:00Z`, headers],
          [`${EVALUATE_PATH}?q=laptop&explain=1`, headers],
          [`${EVALUATE_PATH}?q=laptop&explain=true&explain=false`, headers],
          [`${EVALUATE_PATH}?q=laptop&segment=`, headers],
          [`${EVALUATE_PATH}?q=laptop&segment=${'s'.repeat(101)}`, headers],
          [`${EVALUATE_PATH}?q=laptop&filter=nocolon`, headers],
          [`${EVALUATE_PATH}?q=laptop&filter=:red`, headers],
          [`${EVALUATE_PATH}?q=laptop&rows=10`, headers],
          [`${EVALUATE_PATH}?q=${'x'.repeat(1001)}`, headers],
          [`${EVALUATE_PATH}?q=%E0%A4%A`, headers],
          [`${EVALUATE_PATH}?q=a%00b`, headers],
          [`${EVALUATE_PATH}?%71=laptop`, headers],
          [
            `${EVALUATE_PATH}?${Array.from({ length: 101 }, (_, i) => `segment=s${i}`).join('&')}&q=x`,
            headers,
          ],
          [`/studios/shop${EVALUATE_PATH}?q=laptop`, headers],
        ];
        for (const [target, given] of cases)
          await sameOnBoth(nodes, target, { 'x-request-id': 'trace-2', ...given });
      },
    );

    contract('agree with the route on any query a shopper may type', async (t) => {
      const nodes = await twoNodes(t, engine);
      const words = fc.oneof(
        fc.constantFrom('laptop', 'LAPTOP', 'laptop bag', 'sale', ' ', ''),
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 6 }),
      );
      await fc.assert(
        fc.asyncProperty(
          words,
          fc.option(fc.boolean(), { nil: undefined }),
          fc.array(fc.constantFrom('members', 'guests', 'Members'), { maxLength: 2 }),
          async (q, explain, segments) => {
            const parts = [`q=${encodeURIComponent(q)}`, ...segments.map((s) => `segment=${s}`)];
            if (explain !== undefined) parts.push(`explain=${explain}`);
            await sameOnBoth(nodes, `${EVALUATE_PATH}?${parts.join('&')}`, bearer(nodes.access));
          },
        ),
        { numRuns: 60 },
      );
    });

    contract(
      'log the line the route logs at info, and leave the request to the route at debug',
      async (t) => {
        const logs = { fast: captureLog('info'), route: captureLog('info') };
        const nodes = await twoNodes(t, engine, { fast: logs.fast.logger, route: logs.route.logger });
        const lineOf = (lines: string[], id: string) => {
          const mine = lines.map((line) => JSON.parse(line)).filter((line) => line.reqId === id);
          assert.equal(mine.length, 1, id);
          const { time, ms, ...rest } = mine[0];
          assert.equal(typeof time, 'number');
          assert.ok(typeof ms === 'number' && ms >= 0);
          return JSON.stringify(rest);
        };
        const target = `${EVALUATE_PATH}?q=laptop&segment=members`;
        const before = nodes.answered();
        for (const id of ['trace-3', 'bad id']) {
          const headers = { ...bearer(nodes.access), 'x-request-id': id };
          const fromRoute = await wireGet(nodes.routePort, target, headers);
          const fromLane = await wireGet(nodes.fastPort, target, headers);
          const idOf = (answer: string) => /x-request-id: (.*)\r\n/.exec(answer)![1]!;
          assert.equal(
            lineOf(logs.fast.lines, idOf(fromLane)).replace(idOf(fromLane), 'ID'),
            lineOf(logs.route.lines, idOf(fromRoute)).replace(idOf(fromRoute), 'ID'),
          );
        }
        assert.equal(nodes.answered() - before, 2, 'the lane answered while logging at info');
        nodes.fast.log.level = 'debug';
        await wireGet(nodes.fastPort, target, bearer(nodes.access));
        assert.equal(nodes.answered() - before, 2, 'at debug the route answers');
      },
    );

    test('stop answering for a client the moment it is revoked', async (t) => {
      const nodes = await twoNodes(t, engine);
      const target = `${EVALUATE_PATH}?q=laptop`;
      assert.match(await wireGet(nodes.fastPort, target, nodes.access.headers), /^HTTP\/1\.1 200 /);
      const before = nodes.answered();
      const revoked = await nodes.fast.inject({
        method: 'DELETE',
        url: `/api/studios/shop/clients/${nodes.access.clientId}`,
        headers: { authorization: adminAuth },
      });
      assert.equal(revoked.statusCode, 204, revoked.body);
      assert.match(await wireGet(nodes.fastPort, target, nodes.access.headers), /^HTTP\/1\.1 401 /);
      assert.equal(nodes.answered(), before);
    });
  });
}
