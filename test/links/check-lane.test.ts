import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import fc from 'fast-check';

const CHECK_PATH = '/api/links/check';

import { ADMIN_PASSWORD, adminAuth, contractTest, engines, skipReason } from '../helpers/app.js';
import { assertCounted, laneAndRouteNodes } from '../helpers/lanes.js';
import { wireGet } from '../helpers/raw-request.js';

const VIEWER_PASSWORD = 'viewer-password-1';
const viewerAuth = `Basic ${Buffer.from(`vera:${VIEWER_PASSWORD}`).toString('base64')}`;
const LINKS = [
  { subject: 'component:a', object: 'resource:x', linkType: 'dependsOn' },
  { subject: 'component:a', object: 'resource:y', linkType: 'isPartOf' },
  { subject: 'query-profile:Ünï cødé', object: 'app:shop', linkType: 'inContextOf' },
  { subject: 'component:b', object: 'component:a', linkType: 'relatesTo' },
];

/** A node with lanes and one without, links and a viewer stored, each user's password verified once on each. */
async function twoNodes(t: TestContext, engine: (typeof engines)[number]) {
  const nodes = await laneAndRouteNodes(t, engine, async (fast) => {
    for (const link of LINKS) {
      const put = await fast.inject({
        method: 'PUT',
        url: '/api/links',
        headers: { authorization: adminAuth },
        payload: link,
      });
      assert.equal(put.statusCode, 200, put.body);
    }
    const viewer = await fast.inject({
      method: 'POST',
      url: '/api/users',
      headers: { authorization: adminAuth },
      payload: { username: 'vera', password: VIEWER_PASSWORD, role: 'viewer' },
    });
    assert.equal(viewer.statusCode, 201, viewer.body);
  });
  // Each node verifies each user's password once (by the route); from then on its lane answers.
  for (const port of [nodes.fastPort, nodes.routePort]) {
    for (const authorization of [adminAuth, viewerAuth]) await wireGet(port, CHECK_PATH, { authorization });
  }
  return { ...nodes, answered: () => nodes.fast.parts.early.answered(CHECK_PATH) };
}

const q = encodeURIComponent;

for (const engine of engines) {
  describe(`link checks before routing on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    test('answer byte for byte what the route answers, and are counted in the request metrics', async (t) => {
      const nodes = await twoNodes(t, engine);
      const targets = [
        CHECK_PATH,
        `${CHECK_PATH}?`,
        `${CHECK_PATH}?subject=component:a&object=resource:x&linkType=dependsOn`,
        `${CHECK_PATH}?subject=component%3Aa&object=resource%3Ax&linkType=dependsOn`,
        `${CHECK_PATH}?subject=component:a&object=resource:x&linkType=isPartOf`,
        // The other direction of a stored link, by its reverse type.
        `${CHECK_PATH}?subject=resource:x&object=component:a&linkType=supports`,
        `${CHECK_PATH}?subject=app:shop&linkType=hasContext`,
        `${CHECK_PATH}?subject=${q('query-profile:Ünï cødé')}`,
        `${CHECK_PATH}?subject=query-profile:%C3%9Cn%C3%AF+c%C3%B8d%C3%A9&object=app:shop`,
        `${CHECK_PATH}?object=component:a&linkType=*`,
        `${CHECK_PATH}?subject=*&object=*`,
        `${CHECK_PATH}?subject=component:nobody`,
        `${CHECK_PATH}?subject=`,
        `${CHECK_PATH}?linkType=relatesTo&subject=component:a`,
      ];
      const requests: Array<[string, Record<string, string>]> = [];
      for (const target of targets) {
        for (const authorization of [adminAuth, viewerAuth]) {
          requests.push([target, { authorization, 'x-request-id': 'trace-1' }]);
        }
      }
      const before = nodes.answered();
      for (const [target, headers] of requests) {
        const expected = await wireGet(nodes.routePort, target, headers);
        assert.match(expected, /^HTTP\/1\.1 200 /, target);
        assert.equal(await wireGet(nodes.fastPort, target, headers), expected, target);
      }
      assert.equal(nodes.answered() - before, requests.length);
      assert.equal(nodes.route.parts.early.answered(CHECK_PATH), 0);
      await assertCounted(nodes.fast, CHECK_PATH, requests.length);
    });

    contract(
      'answer every other request exactly as the route does, refusals by the route itself',
      async (t) => {
        const nodes = await twoNodes(t, engine);
        const wrong = `Basic ${Buffer.from('admin:not-the-password').toString('base64')}`;
        const stranger = `Basic ${Buffer.from(`nobody:${ADMIN_PASSWORD}`).toString('base64')}`;
        const plain = `${CHECK_PATH}?subject=component:a`;
        const cases: Array<[string, Record<string, string>]> = [
          [plain, {}],
          [plain, { authorization: wrong }],
          [plain, { authorization: stranger }],
          [plain, { authorization: 'Basic !!!' }],
          [plain, { authorization: 'Bearer abc' }],
          [plain, { cookie: 'searchdeck_session=unknown' }],
          [`${CHECK_PATH}?linkType=DEPENDSON`, { authorization: adminAuth }],
          [`${CHECK_PATH}?linkType=dependson`, { authorization: adminAuth }],
          [`${CHECK_PATH}?linkType=likes`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject=a&subject=b`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject=a&limit=1`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject=${'x'.repeat(513)}`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject=%E0%A4%A`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject=%ED%A0%80`, { authorization: adminAuth }],
          [`${CHECK_PATH}?subject=a%00b`, { authorization: adminAuth }],
          [`${CHECK_PATH}/?subject=component:a`, { authorization: adminAuth }],
          [`/api/apps/shop/links/check?subject=component:a`, { authorization: adminAuth }],
        ];
        for (const [target, headers] of cases) {
          const wanted = { ...headers, 'x-request-id': 'trace-2' };
          assert.equal(
            await wireGet(nodes.fastPort, target, wanted),
            await wireGet(nodes.routePort, target, wanted),
            `${target} ${JSON.stringify(headers)}`,
          );
        }
      },
    );

    test('agree with the route on any filter a client may send', async (t) => {
      const nodes = await twoNodes(t, engine);
      const headers = { authorization: adminAuth, 'x-request-id': 'trace-3' };
      const names = fc.oneof(
        fc.constantFrom(...LINKS.flatMap((l) => [l.subject, l.object]), '*', ''),
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 6 }),
      );
      const types = fc.constantFrom(
        'dependsOn',
        'supports',
        'isPartOf',
        'hasPart',
        'relatesTo',
        '*',
        'DependsOn',
      );
      await fc.assert(
        fc.asyncProperty(
          fc.record({ subject: names, object: names, linkType: types }, { requiredKeys: [] }),
          async (filter) => {
            const search = Object.entries(filter)
              .map(([name, value]) => `${name}=${q(value)}`)
              .join('&');
            const target = `${CHECK_PATH}?${search}`;
            assert.equal(
              await wireGet(nodes.fastPort, target, headers),
              await wireGet(nodes.routePort, target, headers),
              target,
            );
          },
        ),
        { numRuns: 80 },
      );
    });

    test('refuse a client over the failure limit even with remembered credentials', async (t) => {
      const nodes = await twoNodes(t, engine);
      const target = `${CHECK_PATH}?subject=component:a`;
      assert.match(await wireGet(nodes.fastPort, target, { authorization: adminAuth }), /^HTTP\/1\.1 200 /);
      const before = nodes.answered();
      const wrong = `Basic ${Buffer.from('admin:wrong-guess').toString('base64')}`;
      for (let i = 0; i < 10; i++) {
        assert.match(await wireGet(nodes.routePort, target, { authorization: wrong }), /^HTTP\/1\.1 401 /);
      }
      // The limit is counted in the database: the other node's failures block this one too.
      const refused = await wireGet(nodes.fastPort, target, { authorization: adminAuth });
      assert.match(refused, /^HTTP\/1\.1 429 /);
      assert.match(refused, /"code":"too-many-requests"/);
      assert.equal(nodes.answered(), before);
    });

    test('stop admitting a password at once when it is changed on the node', async (t) => {
      const nodes = await twoNodes(t, engine);
      const target = `${CHECK_PATH}?subject=component:a`;
      assert.match(await wireGet(nodes.fastPort, target, { authorization: viewerAuth }), /^HTTP\/1\.1 200 /);
      const changed = await nodes.fast.inject({
        method: 'PATCH',
        url: '/api/users/vera',
        headers: { authorization: adminAuth },
        payload: { password: 'another-password-2' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      const before = nodes.answered();
      assert.match(await wireGet(nodes.fastPort, target, { authorization: viewerAuth }), /^HTTP\/1\.1 401 /);
      const fresh = `Basic ${Buffer.from('vera:another-password-2').toString('base64')}`;
      assert.match(await wireGet(nodes.fastPort, target, { authorization: fresh }), /^HTTP\/1\.1 200 /);
      assert.equal(nodes.answered(), before, 'the new password is verified by the route first');
      assert.match(await wireGet(nodes.fastPort, target, { authorization: fresh }), /^HTTP\/1\.1 200 /);
      assert.equal(nodes.answered(), before + 1);
    });
  });
}
