// A large export streams: the server holds a page of rules at a time, not the document.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { call } from '../helpers/api.js';
import { adminAuth, build, engines, skipReason } from '../helpers/app.js';
import { content, minimalBodies } from '../rules/fixtures.js';
import { seedRules } from '../rules/seed.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Enough rules, with long descriptions, that the document (about 15 MB) dwarfs a page of them.
// Seeding is most of the file's time and grows with the number of rules, not their size.
const RULES = 10_000;

for (const engine of engines) {
  describe(`bounded export on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('an app of 10,000 rules exports with far less live memory than its document', async (t) => {
      const { app, store } = await build(t, engine);
      assert.equal((await call(app, 'POST', '/api/studios', { id: 'big', name: 'Big' })).status, 201);
      const link = { subject: 'studio:big', object: 'app:shop', linkType: 'inContextOf' };
      assert.equal((await call(app, 'PUT', '/api/links', link)).status, 200);
      // One content checked, and copies of it by name: checking 10,000 alike cost half a second.
      const checked = content({ ...minimalBodies.boostList, name: 'Rule', description: 'x'.repeat(900) });
      const bodies = Array.from({ length: RULES }, (_, i) => ({ ...checked, name: `Rule ${i}` }));
      await seedRules(store.db, 'big', bodies);
      bodies.length = 0;
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      gc();
      const before = process.memoryUsage().heapUsed;
      let peak = 0;
      let bytes = 0;
      let chunks = 0;
      const response = await fetch(`${url}/api/objects/export?app=shop`, {
        headers: { authorization: adminAuth },
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (++chunks % 20 === 0) {
          gc();
          peak = Math.max(peak, process.memoryUsage().heapUsed - before);
        }
      }
      assert.ok(bytes > 10 * 2 ** 20, `the document has ${bytes} bytes`);
      // The client here discards what it reads, so what stays alive is the server's.
      assert.ok(peak < bytes / 3, `live heap grew by ${peak} bytes for a document of ${bytes}`);
    });
  });
}
