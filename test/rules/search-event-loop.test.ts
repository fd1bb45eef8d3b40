import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { build } from '../helpers/app.js';
import { longestStall } from '../helpers/event-loop.js';
import { studioWithToken } from './api.js';
import { content, minimalBodies } from './fixtures.js';
import { seedRules } from './seed.js';

const RULES = 20_000;
const WORDS = ['laptop', 'lamp', 'ladder', 'label', 'lace', 'lake', 'lapel', 'larch'];

/** Rules that nearly all match `la`: a search ranks every one of them. */
function broadContents() {
  return Array.from({ length: RULES }, (_, i) =>
    content({
      ...minimalBodies.blockList,
      name: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}`,
      description: `${WORDS[(i * 3) % WORDS.length]} sale`,
      tags: [WORDS[(i * 5) % WORDS.length]!],
    }),
  );
}

describe('rules text search on sqlite', () => {
  test('keeps the event loop free while relevance searches rank 20,000 rules', async (t) => {
    const { app, store } = await build(t, 'sqlite');
    const access = await studioWithToken(app, 'shop');
    await seedRules(store.db, 'shop', broadContents());
    const search = async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/em-rules?searchQuery=la&sort=textSearchRelevance&size=50',
        headers: access.headers,
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().page.totalElements, RULES);
    };
    await search();
    // Several searches in a row, two at a time: each ranks every rule of the studio.
    const stall = await longestStall(t, 50, async () => {
      for (let i = 0; i < 3; i++) await Promise.all([search(), search()]);
    });
    assert.ok(stall <= 50, `the event loop was held for ${stall.toFixed(1)} ms`);
  });
});
