import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RuleCreateBody, RuleResponse, RuleUpdateBody } from '../../src/rules/schemas.js';

describe('wire schemas', () => {
  // Fastify's validator fills defaults into bodies and its serializer into
  // answers; type-specific defaults there would give a blockList a `boost`.
  for (const [name, schema] of Object.entries({ RuleCreateBody, RuleUpdateBody, RuleResponse })) {
    test(`${name} carries no defaults`, () => {
      assert.equal(JSON.stringify(schema).includes('"default"'), false);
    });
  }

  test('bodies accept the read-only fields of an answer and keep unknown members for validation to name', () => {
    for (const field of ['id', 'publishState', 'liveContent', 'conflicts']) {
      assert.ok(field in RuleUpdateBody.properties);
    }
    assert.equal('additionalProperties' in RuleCreateBody, false);
  });
});
