import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CompiledStudio } from '../../src/evaluation/compiled-studio.js';
import type { EvaluatedRule } from '../../src/evaluation/evaluation.js';
import { build, engines, skipReason } from '../helpers/app.js';
import { studioWithToken } from '../rules/api.js';
import { AT, evaluationInput, referenceEffect, referenceFired, ruleContent } from './reference.js';

const ruleSet = fc.array(
  fc.record({
    content: ruleContent,
    creationDate: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'),
  }),
  { maxLength: 12 },
);

describe('evaluation against a brute-force reference', () => {
  test('fires the same rules in the same order with the same merged effect', () => {
    fc.assert(
      fc.property(ruleSet, fc.array(evaluationInput, { minLength: 1, maxLength: 5 }), (drawn, inputs) => {
        const rules: EvaluatedRule[] = drawn.map((r, i) => ({ id: `r${String(i).padStart(2, '0')}`, ...r }));
        const studio = new CompiledStudio(rules, []);
        for (const input of inputs) {
          const answer = studio.evaluate(input);
          const fired = referenceFired(rules, input);
          assert.deepEqual(
            answer.rules.map((r) => r.id),
            fired.map((r) => r.id),
          );
          assert.deepEqual(answer.effect, referenceEffect(fired));
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('an index changed rule by rule', () => {
  test('answers as the reference over the rules it holds after any puts and removes', () => {
    const step = fc.oneof(
      fc.record({ put: fc.nat(7), content: ruleContent }),
      fc.record({ remove: fc.nat(7) }),
    );
    fc.assert(
      fc.property(ruleSet, fc.array(step, { maxLength: 12 }), evaluationInput, (drawn, steps, input) => {
        const held = new Map<string, EvaluatedRule>();
        drawn.slice(0, 8).forEach((r, i) => {
          held.set(`r${i}`, { id: `r${i}`, ...r });
        });
        const studio = new CompiledStudio([...held.values()], []);
        for (const change of steps) {
          if ('remove' in change) {
            studio.rules.remove(`r${change.remove}`);
            held.delete(`r${change.remove}`);
          } else {
            const id = `r${change.put}`;
            const rule = {
              id,
              creationDate: held.get(id)?.creationDate ?? AT.toISOString(),
              content: change.content,
            };
            studio.rules.put(rule);
            held.set(id, rule);
          }
        }
        const fired = referenceFired([...held.values()], input);
        const answer = studio.evaluate(input);
        assert.equal(studio.ruleCount, held.size);
        assert.deepEqual(
          answer.rules.map((r) => r.id),
          fired.map((r) => r.id),
        );
        assert.deepEqual(answer.effect, referenceEffect(fired));
      }),
      { numRuns: 400 },
    );
  });
});

for (const engine of engines) {
  describe(`evaluation of published rules against the reference on ${engine}`, {
    skip: await skipReason(engine),
  }, () => {
    test('the API answers what the reference computes from the published contents', async (t) => {
      const { app } = await build(t, engine, { now: () => AT });
      const access = await studioWithToken(app, 'shop');
      const samples = fc.sample(
        fc.tuple(
          fc.array(ruleContent, { minLength: 1, maxLength: 8 }),
          fc.array(evaluationInput, { minLength: 3, maxLength: 3 }),
        ),
        { numRuns: 3, seed: 9 },
      );
      for (const [contents, inputs] of samples) {
        const rules: EvaluatedRule[] = [];
        for (const content of contents) {
          const created = await app.inject({
            method: 'POST',
            url: '/em-rules',
            headers: access.headers,
            payload: content,
          });
          assert.equal(created.statusCode, 201, created.body);
          const rule = created.json<{ id: string; creationDate: string }>();
          await app.inject({ method: 'POST', url: `/em-rules/${rule.id}/publish`, headers: access.headers });
          rules.push({ id: rule.id, creationDate: rule.creationDate, content });
        }
        for (const input of inputs) {
          const response = await app.inject({
            method: 'POST',
            url: '/em-rules/evaluate',
            headers: access.headers,
            payload: {
              q: input.q,
              segment: [...input.segments],
              queryProfile: [...input.queryProfiles],
              filter: input.filters.map((f) => `${f.fieldName}:${f.value}`),
            },
          });
          assert.equal(response.statusCode, 200, response.body);
          const fired = referenceFired(rules, input);
          assert.deepEqual(
            response.json().rules.map((r: { id: string }) => r.id),
            fired.map((r) => r.id),
          );
          assert.deepEqual(response.json().effect, referenceEffect(fired));
        }
        for (const { id } of rules) {
          await app.inject({ method: 'POST', url: `/em-rules/${id}/unpublish`, headers: access.headers });
          await app.inject({ method: 'DELETE', url: `/em-rules/${id}`, headers: access.headers });
        }
      }
    });
  });
}
