import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import fc from 'fast-check';
import { SUGGESTIONS_PATH } from '../../src/typeahead/suggestions-endpoint.js';
import { contractTest, engines, skipReason } from '../helpers/app.js';
import { assertCounted, laneAndRouteNodes } from '../helpers/lanes.js';
import { wireGet } from '../helpers/raw-request.js';
import { admin, createInstance } from './helpers.js';

const TERMS = ['Apfel', 'apple pie', 'Äpfel grün', 'banana', 'Bar+Tisch', 'bär', '東京', 'zebra 100%'];

/** A node with lanes and one without, the instances made before the second starts (so it loads them). */
async function twoNodes(t: TestContext, engine: (typeof engines)[number]) {
  const nodes = await laneAndRouteNodes(t, engine, async (fast) => {
    const shop = await createInstance(fast, { allowedOrigins: ['https://shop.example'] });
    const open = await createInstance(fast, { name: 'Open', allowedOrigins: ['*'] });
    for (const { id } of [shop, open]) {
      const put = await admin(fast, 'PUT', `/instances/${id}/terms`, { included: TERMS, excluded: [] });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    }
    return { shop, open };
  });
  return { ...nodes, ...nodes.prepared };
}

for (const engine of engines) {
  describe(`suggestions before routing on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('answer byte for byte what the route answers, and are counted in the request metrics', async (t) => {
      const nodes = await twoNodes(t, engine);
      const requests: Array<[string, Record<string, string>]> = [];
      for (const token of [nodes.shop.embedToken, nodes.open.embedToken]) {
        const auth = { authorization: `Embed ${token}`, 'x-request-id': 'trace-1' };
        for (const query of [
          '',
          '?',
          '?prefix=a',
          '?prefix=A&limit=1',
          '?limit=3&prefix=b',
          '?prefix=%C3%A4',
          '?prefix=bar%2Bt',
          '?prefix=apple+p',
          '?prefix=%E6%9D%B1',
        ]) {
          requests.push([`/typeahead/suggestions${query}`, auth]);
          requests.push([`/typeahead/suggestions${query}`, { ...auth, origin: 'https://shop.example' }]);
          requests.push([`/typeahead/suggestions${query}`, { ...auth, origin: 'https://other.example' }]);
        }
      }
      // The first request of each instance builds its index through the route.
      for (const [target, headers] of requests.slice(0, 1)) await wireGet(nodes.fastPort, target, headers);
      await wireGet(nodes.fastPort, '/typeahead/suggestions', requests[requests.length - 1]![1]);
      const before = nodes.fast.parts.early.answered(SUGGESTIONS_PATH);
      for (const [target, headers] of requests) {
        const expected = await wireGet(nodes.routePort, target, headers);
        assert.match(expected, /^HTTP\/1\.1 200 /, target);
        assert.equal(
          await wireGet(nodes.fastPort, target, headers),
          expected,
          `${target} ${JSON.stringify(headers)}`,
        );
      }
      assert.equal(nodes.fast.parts.early.answered(SUGGESTIONS_PATH) - before, requests.length);
      assert.equal(nodes.route.parts.early.answered(SUGGESTIONS_PATH), 0);
      await assertCounted(nodes.fast, SUGGESTIONS_PATH, requests.length);
    });

    contract(
      'answer every other request exactly as the route does, refusals by the route itself',
      async (t) => {
        const nodes = await twoNodes(t, engine);
        const auth = `Embed ${nodes.shop.embedToken}`;
        await wireGet(nodes.fastPort, '/typeahead/suggestions', { authorization: auth });
        const cases: Array<[string, Record<string, string>]> = [
          ['/typeahead/suggestions?prefix=a', {}],
          ['/typeahead/suggestions?prefix=a', { authorization: 'Embed not-a-token' }],
          ['/typeahead/suggestions?prefix=a&limit=0', { authorization: auth }],
          ['/typeahead/suggestions?prefix=a&limit=5001', { authorization: auth }],
          ['/typeahead/suggestions?prefix=a&prefix=b', { authorization: auth }],
          ['/typeahead/suggestions?prefix=%ED%A0%80', { authorization: auth }],
          ['/typeahead/suggestions?prefix=%E0%A4%A', { authorization: auth }],
          ['/typeahead/suggestions?prefix=a&other=1', { authorization: auth }],
          ['/typeahead/suggestions/?prefix=a', { authorization: auth }],
          ['/typeahead/suggestions?prefix=a', { authorization: auth, 'if-none-match': '*' }],
        ];
        for (const [target, headers] of cases) {
          const wanted = { ...headers, 'x-request-id': 'trace-2' };
          assert.equal(
            await wireGet(nodes.fastPort, target, wanted),
            await wireGet(nodes.routePort, target, wanted),
            target,
          );
        }
      },
    );

    test('agree with the route on any prefix a client may type', async (t) => {
      const nodes = await twoNodes(t, engine);
      const headers = { authorization: `Embed ${nodes.open.embedToken}`, 'x-request-id': 'trace-3' };
      const first = await wireGet(nodes.routePort, '/typeahead/suggestions', headers);
      assert.equal(await wireGet(nodes.fastPort, '/typeahead/suggestions', headers), first);
      await fc.assert(
        fc.asyncProperty(
          fc.string({ maxLength: 6 }),
          fc.integer({ min: 1, max: 20 }),
          async (prefix, limit) => {
            const target = `/typeahead/suggestions?prefix=${encodeURIComponent(prefix)}&limit=${limit}`;
            assert.equal(
              await wireGet(nodes.fastPort, target, headers),
              await wireGet(nodes.routePort, target, headers),
            );
          },
        ),
        { numRuns: 60 },
      );
    });
  });
}
