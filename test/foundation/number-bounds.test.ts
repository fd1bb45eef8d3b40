// Every number a client can send has documented bounds: the validator relies on them to turn
// "1e309" (Infinity after coercion) and other huge values into a 400.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build } from '../helpers/app.js';

type Schema = Record<string, unknown>;

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

interface Operation {
  parameters?: Array<{ name: string; in: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}

/** Every integer or number schema under `schema`, with where it is (refs followed once). */
function numbersIn(
  schema: Schema,
  where: string,
  doc: Document,
  seen = new Set<string>(),
): Array<[string, Schema]> {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.split('/').at(-1)!;
    if (seen.has(name)) return [];
    seen.add(name);
    return numbersIn(doc.components.schemas[name]!, where, doc, seen);
  }
  const found: Array<[string, Schema]> = [];
  const types = [schema.type].flat();
  if (types.includes('integer') || types.includes('number')) found.push([where, schema]);
  for (const [name, member] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    found.push(...numbersIn(member, `${where}.${name}`, doc, seen));
  }
  if (schema.items) found.push(...numbersIn(schema.items as Schema, `${where}[]`, doc, seen));
  if (typeof schema.additionalProperties === 'object') {
    found.push(...numbersIn(schema.additionalProperties as Schema, `${where}{}`, doc, seen));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const branch of (schema[key] ?? []) as Schema[]) found.push(...numbersIn(branch, where, doc, seen));
  }
  return found;
}

test('gives every integer and number parameter and body field a minimum and a maximum', async (t) => {
  const { app } = await build(t, 'sqlite');
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json<Document>();
  const numbers: Array<[string, Schema]> = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const parameter of operation.parameters ?? []) {
        numbers.push(...numbersIn(parameter.schema, `${at} ${parameter.in} ${parameter.name}`, doc));
      }
      for (const [type, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
        numbers.push(...numbersIn(schema, `${at} body (${type})`, doc));
      }
    }
  }
  assert.ok(numbers.length >= 20, `only ${numbers.length} numbers found: is the walk broken?`);
  const unbounded = numbers
    .filter(([, schema]) => {
      // One allowed value (a literal or an enum) is bounded by itself.
      if (typeof schema.const === 'number' || Array.isArray(schema.enum)) return false;
      const lower = typeof schema.minimum === 'number' || typeof schema.exclusiveMinimum === 'number';
      const upper = typeof schema.maximum === 'number' || typeof schema.exclusiveMaximum === 'number';
      return !(lower && upper);
    })
    .map(([where]) => where);
  assert.deepEqual(unbounded, []);
});
