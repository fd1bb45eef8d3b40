// How every route's answer is serialised from its schema, compiled once per process.
import fastJson, { type Options } from 'fast-json-stringify';
import { madeOnce } from './made-once.js';
import { sharedSchemasKey } from './shared-schemas-key.js';
import type { CompileTime } from './validation.js';

type Serialize = (document: unknown) => string;
interface RouteDefinition {
  schema?: unknown;
}

// The serialisers compiled so far, by the shared schemas and options they were compiled
// with and then by the route schema's JSON. Fastify's own factory compiles each route's
// schemas afresh for every app and for each of the two prefixes an admin route is mounted
// under; answers are the same for an equal schema, and a serialiser holds no state between
// calls, so one compiled function serves every app of the process.
const compiled = new Map<string, Map<string, Serialize>>();

/**
 * Fastify's serializer factory (`schemaController.compilersFactory.buildSerializer`), compiling
 * each route's answer schemas while the app starts or when first used (`CompileTime`).
 */
export function serializerFactory(when: CompileTime) {
  return (externalSchemas: unknown, serializerOptions?: Options) => {
    const shared = (externalSchemas ?? {}) as Record<string, unknown>;
    const context = `${sharedSchemasKey(shared)}${JSON.stringify(serializerOptions ?? {})}`;
    const known = compiled.get(context) ?? new Map<string, Serialize>();
    compiled.set(context, known);
    return (route: RouteDefinition): Serialize => {
      const schema = (route.schema ?? {}) as { $id?: string };
      const serializer = () => {
        const key = JSON.stringify(schema);
        const serialize = known.get(key) ?? compile(schema, shared, serializerOptions);
        known.set(key, serialize);
        return serialize;
      };
      if (when === 'at-start') return serializer();
      const real = madeOnce(serializer);
      return (document) => real()(document);
    };
  };
}

function compile(
  schema: { $id?: string },
  shared: Record<string, unknown>,
  options: Options = {},
): Serialize {
  // As Fastify's own factory does: a route schema that is itself one of the shared schemas is
  // compiled without its second copy among the references.
  const { [schema.$id ?? '']: _self, ...others } = shared;
  const references = schema.$id && schema.$id in shared ? others : shared;
  return fastJson(schema, { ...options, schema: references as Options['schema'] });
}

/**
 * The serializer a route runs for an answer schema (the same compiled function), for the
 * early answers; JSON.stringify where the route declares none.
 */
export function compiledSerializer(
  app: { getSchemas(): Record<string, unknown> },
  schema: unknown,
  when: CompileTime,
): Serialize {
  if (schema === undefined) return JSON.stringify;
  return serializerFactory(when)(app.getSchemas())({ schema });
}
