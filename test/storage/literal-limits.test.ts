// SQLite compiles a statement with a bound LIMIT again on every run, so the SQLite handles
// write integer limits into the SQL text. Reading through them must still answer exactly
// what a bound limit answers, on both engines.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { engines, freshStore, skipReason } from '../helpers/app.js';

for (const engine of engines) {
  describe(`LIMIT on ${engine}`, { skip: await skipReason(engine) }, () => {
    test('pages of a limited, offset query are slices of the whole ordered set', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      const { db, reader } = fresh.store;
      const subjects = Array.from({ length: 40 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      await db
        .insertInto('link')
        .values(
          subjects.map((subject) => ({
            subject,
            link_type: 'relatesTo',
            object: 'o',
            given_reversed: 0,
            originator: 'test',
            created_at: '2026-01-01T00:00:00.000Z',
          })),
        )
        .execute();
      const page = (handle: typeof db, limit: number, offset: number) =>
        handle.selectFrom('link').select('subject').orderBy('subject').limit(limit).offset(offset).execute();
      await fc.assert(
        fc.asyncProperty(fc.nat(45), fc.nat(45), fc.boolean(), async (limit, offset, onReader) => {
          const rows = await page(onReader ? reader : db, limit, offset);
          assert.deepEqual(
            rows.map((r) => r.subject),
            subjects.slice(offset, offset + limit),
          );
        }),
        { numRuns: 60 },
      );
    });

    test('an integer limit is part of the SQL text on SQLite and a parameter on PostgreSQL', async (t) => {
      const fresh = await freshStore(engine);
      t.after(() => fresh.close());
      for (const handle of [fresh.store.db, fresh.store.reader]) {
        const compiled = handle
          .selectFrom('link')
          .select('subject')
          .where('subject', '=', 'app:shop')
          .limit(7)
          .offset(3)
          .compile();
        if (engine === 'sqlite') {
          assert.match(compiled.sql, / limit 7 offset \?$/);
          assert.deepEqual(compiled.parameters, ['app:shop', 3]);
        } else {
          assert.match(compiled.sql, / limit \$2 offset \$3$/);
          assert.deepEqual(compiled.parameters, ['app:shop', 7, 3]);
        }
      }
      // Anything but a plain count is left as it was written.
      const expression = fresh.store.db
        .selectFrom('link')
        .select('subject')
        .limit(sql<number>`${2} + 1`)
        .compile();
      assert.equal(expression.parameters.length, 1);
    });
  });
}
