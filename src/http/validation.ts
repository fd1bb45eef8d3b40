// How every route's input is checked against its schema, in one place for all routes.
import AjvCompiler from '@fastify/ajv-compiler';
import { ERROR_MESSAGE } from './error-message.js';
import { madeOnce } from './made-once.js';
import { scalarStrings } from './scalar-strings.js';
import { sharedSchemasKey } from './shared-schemas-key.js';

type Options = AjvCompiler.Options;

// `verbose` puts the failing schema into each error, where a schema's own message is found
// (error-message.ts); the keyword is declared so that strict mode knows it.
const common: Options = {
  removeAdditional: false,
  allErrors: true,
  useDefaults: true,
  verbose: true,
  keywords: [ERROR_MESSAGE],
};

// A URL carries only text, so its parts are coerced to the types their schema names ("20" → 20).
// `strictNumbers: false` lets the bounds see what coercion made: with it on, Ajv coerces "1e309"
// to Infinity and then skips every number keyword, so Infinity passed any maximum. Every
// integer and number of a URL has both bounds (tested), so nothing infinite gets through.
const urlParts: Options = { ...common, coerceTypes: 'array', strictNumbers: false };

// A JSON body says its types itself: a string where a number is expected is a 400, and so is a
// number where a string is expected (no "-Infinity" stored as a name). Infinity (JSON's 1e309)
// is no number here (`strictNumbers`). Strings for numbers and booleans are taken only where a
// schema says so (`x-scalar-strings`).
const bodies: Options = { ...common, coerceTypes: false, strictNumbers: true };

// One pool for the whole process: apps built in it (tests build hundreds, the service mounts
// every admin route twice) share the Ajv instances of equal shared schemas and options.
const pool = AjvCompiler();
type PoolCompiler = ReturnType<typeof pool>;
type Validate = ReturnType<PoolCompiler>;
// The functions each Ajv instance compiled, by the route schema's JSON: a schema equal to
// one compiled before (the same route in another app, or under its second prefix) is not
// compiled again. A compiled function holds no state between calls, so sharing it is safe.
const compiled = new WeakMap<PoolCompiler, Map<string, Validate>>();

function memoised(compiler: PoolCompiler): PoolCompiler {
  const known = compiled.get(compiler) ?? new Map<string, Validate>();
  compiled.set(compiler, known);
  // The pool's types describe a bare schema; Fastify passes the route's definition.
  return ((route: { schema: unknown }) => {
    const key = JSON.stringify(route.schema);
    const validate = known.get(key) ?? compiler(route as Parameters<PoolCompiler>[0]);
    known.set(key, validate);
    return validate;
  }) as PoolCompiler;
}

// The compilers of each set of shared schemas, by its JSON.
const compilers = new Map<string, { forBodies: PoolCompiler; forUrlParts: PoolCompiler }>();

function compilersFor(externalSchemas: Parameters<typeof pool>[0]) {
  const key = sharedSchemasKey(externalSchemas as Record<string, unknown>);
  const known = compilers.get(key);
  if (known) return known;
  const plugins = [scalarStrings];
  const made = {
    forBodies: memoised(pool(externalSchemas, { plugins, customOptions: bodies })),
    forUrlParts: memoised(pool(externalSchemas, { plugins, customOptions: urlParts })),
  };
  compilers.set(key, made);
  return made;
}

/**
 * When route schemas are compiled: all while the app starts (the service: a schema Ajv cannot
 * compile stops the start), or each when a request first needs it (tests, which build hundreds
 * of apps and send each a few requests). The compiled functions are the same either way.
 */
export type CompileTime = 'at-start' | 'at-first-use';

/**
 * Fastify's validator factory, with one Ajv for bodies and another for the query string, path
 * parameters and headers. Shared schemas (`$id`) are added to both.
 */
export function validatorFactory(when: CompileTime): AjvCompiler.BuildCompilerFromPool {
  return (externalSchemas) => {
    const { forBodies, forUrlParts } = compilersFor(externalSchemas);
    // The pool's types describe a bare schema; Fastify passes the route's definition.
    type RouteDefinition = Parameters<typeof forBodies>[0] & { httpPart?: string };
    return ((route: RouteDefinition) => {
      const compile = () => (route.httpPart === 'body' ? forBodies(route) : forUrlParts(route));
      return when === 'at-start' ? compile() : deferred(compile);
    }) as typeof forBodies;
  };
}

/** A validator that compiles its schema when first called, and then answers as Ajv's would. */
function deferred(compile: () => Validate): Validate {
  const real = madeOnce(compile);
  const validate = ((data: unknown, context?: Parameters<Validate>[1]) => {
    const compiled = real();
    const valid = compiled(data, context);
    validate.errors = compiled.errors;
    return valid;
  }) as Validate;
  // Fastify gives an Ajv validator the request as the parent of the part it checks (so that
  // coercion may replace the whole part), and tells Ajv's validators by their `schemaEnv`.
  Object.defineProperty(validate, 'schemaEnv', { get: () => real().schemaEnv });
  return validate;
}

/**
 * A route's querystring validator as the route itself runs it (the same compiler and options,
 * so the same function when schemas are compiled at start), for the early answers; every
 * query passes when the route declares no querystring schema.
 */
export function compiledQueryValidator(
  app: { getSchemas(): Record<string, unknown> },
  schema: unknown,
  when: CompileTime,
): (query: unknown) => boolean {
  if (schema === undefined) return () => true;
  const compile = validatorFactory(when)(app.getSchemas() as Parameters<typeof pool>[0]);
  type RouteDefinition = Parameters<typeof compile>[0] & { httpPart?: string };
  const validate = compile({ schema, httpPart: 'querystring' } as RouteDefinition);
  return (query) => validate(query) === true;
}
