import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';

/** An assertion that an answer matches the 200 schema the API document gives `get` of `path`. */
export async function documentedAnswer(
  app: FastifyInstance,
  path: string,
): Promise<(answer: unknown) => void> {
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const validate = ajv.compile(
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')),
  );
  return (answer) => assert.ok(validate(answer), JSON.stringify(validate.errors));
}
