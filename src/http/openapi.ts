// The OpenAPI document (`/api/openapi.json`, browsable at `/docs`): what every operation of an
// interface has in common is added here, from the route's path, when the document is built, so
// a new route cannot forget it. Each route states its own operationId, summary, tags, schemas
// and its particular answers (201, 409, …). Nothing here changes how a request is handled.

import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySchema, RouteOptions } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { IdString } from './schemas.js';

/** What the document shows of a route beyond its schema: not checked when a request is served. */
export interface DocumentedOnly {
  /** A body the route parses itself (the token endpoint's form). */
  body?: TSchema;
  /** The media types of that body. */
  consumes?: string[];
  /** Answers whose body is not JSON, or that a plugin's own error handler writes. */
  response?: Record<number, unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the OpenAPI document shows beyond the route's schema (see src/http/openapi.ts). */
    openapi?: DocumentedOnly;
  }
}

const RULES_SCOPE = 'commercestudio.rules';
const REWRITES_SCOPE = 'commercestudio.rewrites';

/** The credentials of the three interfaces (and the token endpoint's client credentials). */
export const securitySchemes = {
  basic: {
    type: 'http',
    scheme: 'basic',
    description: 'Administrative API (`/api`): a user’s name and password.',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'searchdeck_session',
    description:
      'Administrative API and the Rules API of a studio: the console’s session cookie from `POST /api/session`; ' +
      'POST, PUT, PATCH and DELETE also send its CSRF token as `x-csrf-token`.',
  },
  embed: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Typeahead API (`/typeahead`): `Embed <token>`, the embed token of a typeahead instance.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Rules API (`/em-rules`): an access token from `POST /oauth2/token`.',
  },
  oauth2: {
    type: 'oauth2',
    description: 'Rules API: the client-credentials grant of an API client of a studio.',
    flows: {
      clientCredentials: {
        tokenUrl: '/oauth2/token',
        scopes: {
          [RULES_SCOPE]: 'Read and change the rules of the client’s studio',
          [REWRITES_SCOPE]: 'Read and change the query rewrites of the client’s studio',
        },
      },
    },
  },
  queryKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Query endpoint (`/api/apps/{app}/query/{profile}`): a search-only key of the profile, `Bearer sdq_…`; Signals API (`/api/apps/{app}/signals/{collection}`): a key of a profile over the collection.',
  },
  clientBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      'Token endpoint: an API client’s id and secret (or `client_id` and `client_secret` in the form).',
  },
} as const;

type Security = Array<Record<string, string[]>>;

interface Interface {
  /** Path prefixes of the interface. */
  prefixes: string[];
  security: Security;
  /** The 4xx answers every operation of the interface may give. */
  errors: number[];
}

// The first match wins; a path that matches none is public (health, readiness).
const INTERFACES: Interface[] = [
  // A profile's search-only key, or a user's Basic credentials.
  {
    prefixes: ['/api/apps/:app/query/'],
    security: [{ queryKey: [] }, { basic: [] }],
    errors: [400, 401, 429],
  },
  // A search-only key of a profile over the collection, or a user's Basic credentials or session.
  {
    prefixes: ['/api/apps/:app/signals/'],
    security: [{ queryKey: [] }, { basic: [] }, { session: [] }],
    errors: [400, 401, 403, 429],
  },
  {
    prefixes: ['/api/', '/metrics'],
    security: [{ basic: [] }, { session: [] }],
    errors: [400, 401, 403, 429],
  },
  { prefixes: ['/typeahead/'], security: [{ embed: [] }], errors: [400, 401, 403] },
  // A studio's own paths take a console session too.
  {
    prefixes: ['/studios/:studioId/query-rewrites'],
    security: [{ bearer: [] }, { oauth2: [REWRITES_SCOPE] }, { session: [] }],
    errors: [400, 401, 403],
  },
  {
    prefixes: ['/query-rewrites'],
    security: [{ bearer: [] }, { oauth2: [REWRITES_SCOPE] }],
    errors: [400, 401, 403],
  },
  {
    prefixes: ['/studios/'],
    security: [{ bearer: [] }, { oauth2: [RULES_SCOPE] }, { session: [] }],
    errors: [400, 401, 403],
  },
  {
    prefixes: ['/em-rules'],
    security: [{ bearer: [] }, { oauth2: [RULES_SCOPE] }],
    errors: [400, 401, 403],
  },
  // Its answers are OAuth2's (RFC 6749 §5.2), stated by the route; no common error body.
  { prefixes: ['/oauth2/'], security: [{ clientBasic: [] }, {}], errors: [] },
];
const PUBLIC: Interface = { prefixes: [], security: [], errors: [400] };

// The common error answers, each written once in `components.responses` under its name, with
// an example of its own (without one, every answer would show the error body's 400 example).
interface ErrorAnswer {
  name: string;
  description: string;
  example: { error: string; message: string; code: string; path: string };
}
const ERROR_ANSWERS: Record<number, ErrorAnswer> = {
  400: {
    name: 'BadRequest',
    description: 'The request is not valid; `errors` names each problem',
    example: {
      error: 'Bad Request',
      message: 'name must not be empty',
      code: 'invalid-body',
      path: '/api/studios',
    },
  },
  401: {
    name: 'Unauthorized',
    description: 'The credential is missing or wrong',
    example: {
      error: 'Unauthorized',
      message: 'invalid username or password',
      code: 'unauthorized',
      path: '/api/studios',
    },
  },
  403: {
    name: 'Forbidden',
    description: 'The credential does not allow this',
    example: {
      error: 'Forbidden',
      message: 'the role viewer may not POST this resource',
      code: 'forbidden',
      path: '/api/studios',
    },
  },
  404: {
    name: 'NotFound',
    description: 'Not found',
    example: {
      error: 'Not Found',
      message: 'no studio shop',
      code: 'not-found',
      path: '/api/studios/shop',
    },
  },
  409: {
    name: 'Conflict',
    description: 'Conflicts with the current state',
    example: {
      error: 'Conflict',
      message: 'studio shop already exists',
      code: 'conflict',
      path: '/api/studios',
    },
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is too large',
    example: {
      error: 'Payload Too Large',
      message: 'the request body is larger than 1 MiB',
      code: 'payload-too-large',
      path: '/api/studios',
    },
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The body’s media type is not accepted',
    example: {
      error: 'Unsupported Media Type',
      message: 'unsupported Content-Type',
      code: 'unsupported-media-type',
      path: '/api/studios',
    },
  },
  429: {
    name: 'TooManyRequests',
    description: 'Too many failed attempts from this address; retry after `Retry-After` seconds',
    example: {
      error: 'Too Many Requests',
      message: 'too many failed logins; try again later',
      code: 'too-many-requests',
      path: '/api/studios',
    },
  },
  503: {
    name: 'Unavailable',
    description: 'Not ready, or the database is unavailable',
    example: {
      error: 'Service Unavailable',
      message: 'the database cannot answer now; retry shortly',
      code: 'unavailable',
      path: '/api/studios',
    },
  },
};
const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

const SUCCESS_DESCRIPTIONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted; the work goes on in the background',
  204: 'Done; no body',
};

/** Prefixes under which a route is mounted a second time, and the operationId suffix of that copy. */
const SCOPED_COPIES: Array<{ prefix: string; parameter: string; suffix: string; schema: TSchema }> = [
  {
    prefix: '/api/apps/:app/',
    parameter: 'app',
    suffix: 'InApp',
    schema: Type.Unsafe({
      ...IdString,
      description: 'The app whose context narrows links and search clusters',
      examples: ['shop'],
    }),
  },
  {
    prefix: '/studios/:studioId/',
    parameter: 'studioId',
    suffix: 'InStudio',
    schema: Type.String({
      minLength: 1,
      description: 'The studio; it must be the token’s own',
      examples: ['shop'],
    }),
  },
];

type Schema = Record<string, unknown>;

/**
 * Who may call an operation of the Administrative API, shown as its `x-roles`: the users area
 * decides, from what the route declares.
 */
export type RolesOf = (route: RouteOptions) => string[];

/** Options of `@fastify/swagger` for the service's document. */
export function openApiOptions(version: string, rolesOf: RolesOf): FastifyDynamicSwaggerOptions {
  return {
    // Shared schemas keep their $id as their name in the document, instead of def-0, def-1, …
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'searchdeck',
        version,
        description:
          'Links, search clusters, typeahead and merchandising rules. Three interfaces, each with its credential: ' +
          'the Administrative API under `/api` (HTTP Basic or a console session; `x-roles` names who may call each operation), the Typeahead API under `/typeahead` (embed token) ' +
          'and the Rules API under `/em-rules` (OAuth2 bearer token). Every error answer has the common error body.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the document is served by the server it describes, whatever its address.
      servers: [{ url: '/', description: 'The server that serves this document' }],
      tags: [
        { name: 'operations', description: 'Health, readiness and metrics' },
        {
          name: 'session',
          description: 'Signing in and out of the console (a session cookie and its CSRF token)',
        },
        { name: 'users', description: 'Users and their roles: admin, merchandiser, viewer (admins only)' },
        {
          name: 'apps',
          description: 'The apps: contexts in the link graph that clusters and query profiles live in',
        },
        { name: 'links', description: 'The link graph between platform objects' },
        { name: 'search clusters', description: 'Search-cluster definitions and their connectivity check' },
        { name: 'typeahead', description: 'Typeahead instances, terms, search logs and suggestions' },
        { name: 'studios', description: 'Studios (tenants of the Rules API) and their API clients' },
        {
          name: 'rules',
          description: 'Merchandising rules, publishing and bulk operations; the token endpoint',
        },
        {
          name: 'rewrites',
          description: 'Query rewrites (synonyms, misspellings, phrases, head-tail, removed words)',
        },
        { name: 'history', description: 'Who changed what and when, for every kind of object' },
        { name: 'objects', description: 'Export and import of objects, whole or by app' },
        {
          name: 'query profiles',
          description: "An app's query profiles and their search-only keys",
        },
        {
          name: 'experiments',
          description:
            "A/B tests a query profile runs: variants of its params and studio, shoppers' assignment, results, promotion",
        },
        {
          name: 'query',
          description: "A shopper's query through a profile: rewritten, merchandised, sent to Solr, logged",
        },
        {
          name: 'signals',
          description: "Shoppers' clicks, carts, purchases and the shop's own events, in Fusion's shape",
        },
      ],
      components: { securitySchemes: securitySchemes as never },
    },
    transform: ({ schema, url, route }) => ({
      schema: describeRoute(
        schema as Schema | undefined,
        url,
        route as RouteOptions,
        rolesOf,
      ) as FastifySchema,
      url,
    }),
    transformObject: (documentObject) =>
      withSharedErrorAnswers(
        withoutOptionalQueryExamples(
          withDeclaredTags((documentObject as { openapiObject: Schema }).openapiObject),
        ),
      ) as never,
  };
}

/** The route's schema as the document shows it: its interface's security and error answers added. */
function describeRoute(
  schema: Schema | undefined,
  url: string,
  route: RouteOptions,
  rolesOf: RolesOf,
): Schema | undefined {
  if (schema === undefined || schema.hide === true) return schema;
  const extra = route.config?.openapi ?? {};
  const described: Schema = { ...schema };
  const copy = SCOPED_COPIES.find((scoped) => url.startsWith(scoped.prefix));
  if (copy && typeof schema.operationId === 'string')
    described.operationId = `${schema.operationId}${copy.suffix}`;

  const iface = INTERFACES.find((i) => i.prefixes.some((prefix) => url.startsWith(prefix))) ?? PUBLIC;
  described.security ??= iface.security;
  if (iface.prefixes.includes('/api/') && schema.security === undefined) {
    described['x-roles'] = rolesOf(route);
  }

  const params = pathParameters(url, schema.params as Schema | undefined);
  if (params) described.params = params;
  if (schema.querystring) described.querystring = withDefaultsOptional(schema.querystring as Schema);
  if (extra.body) {
    described.body = extra.body;
    described.consumes = extra.consumes;
  }

  const errors = new Set(iface.errors);
  if (url.includes(':')) errors.add(404);
  if (described.body && iface.errors.length > 0) {
    errors.add(413);
    errors.add(415);
  }
  const given: Record<number, Schema | undefined> = {
    ...(schema.response as Record<number, Schema> | undefined),
    ...(extra.response as Record<number, Schema> | undefined),
  };
  const response: Schema = {};
  for (const status of [...new Set([...Object.keys(given).map(Number), ...errors])].sort((a, b) => a - b)) {
    const answer = given[status] ?? ({ $ref: 'ErrorBody' } as Schema);
    const description =
      answer.description ?? SUCCESS_DESCRIPTIONS[status] ?? ERROR_ANSWERS[status]?.description;
    response[status] = description === undefined ? answer : { ...answer, description };
  }
  described.response = response;
  return described;
}

/** The route's path parameters, with those of the prefix it is mounted under declared too. */
function pathParameters(url: string, params: Schema | undefined): Schema | undefined {
  const added = SCOPED_COPIES.filter((scoped) => url.startsWith(scoped.prefix));
  if (added.length === 0) return params;
  const properties = { ...(params?.properties as Schema | undefined) };
  const required = [...((params?.required as string[] | undefined) ?? [])];
  for (const scoped of added) {
    properties[scoped.parameter] = scoped.schema;
    required.push(scoped.parameter);
  }
  return { type: 'object', properties, required };
}

/** A query whose parameters with a default are not required (the default applies when absent). */
function withDefaultsOptional(query: Schema): Schema {
  const properties = (query.properties ?? {}) as Record<string, Schema>;
  const required = (query.required as string[] | undefined)?.filter(
    (name) => properties[name]?.default === undefined,
  );
  return { ...query, required };
}

/**
 * Optional query parameters without examples: "Try it out" at /docs fills each parameter's
 * example in and sends it, so an example filter turned "list the links" into a list of the one
 * link it matched. A filter's meaning is in its description; required ones keep their example.
 */
function withoutOptionalQueryExamples(document: Schema): Schema {
  for (const methods of Object.values(document.paths as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(methods)) {
      for (const parameter of (operation.parameters ?? []) as Schema[]) {
        if (parameter.in !== 'query' || parameter.required === true) continue;
        delete parameter.example;
        delete parameter.examples;
        const schema = parameter.schema as Schema | undefined;
        if (schema) {
          delete schema.example;
          delete schema.examples;
        }
      }
    }
  }
  return document;
}

/** Every tag an operation names is listed at the top, so that viewers group and describe them. */
function withDeclaredTags(document: Schema): Schema {
  const declared = [...((document.tags ?? []) as Array<{ name: string }>)];
  const names = new Set(declared.map((tag) => tag.name));
  for (const methods of Object.values(document.paths as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(methods)) {
      for (const tag of (operation.tags ?? []) as string[]) {
        if (!names.has(tag)) declared.push({ name: tag });
        names.add(tag);
      }
    }
  }
  return { ...document, tags: declared };
}

/**
 * The common error answers as references to `components.responses`: written once, and named
 * types for clients. An answer a route describes otherwise stays as it is.
 */
function withSharedErrorAnswers(document: Schema): Schema {
  const shared: Record<string, Schema> = {};
  for (const methods of Object.values(document.paths as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(methods)) {
      const responses = operation.responses as Record<string, Schema>;
      for (const [status, response] of Object.entries(responses)) {
        const common = ERROR_ANSWERS[Number(status)];
        const content = response.content as Record<string, { schema?: Schema }> | undefined;
        const isCommon =
          common !== undefined &&
          response.description === common.description &&
          Object.keys(content ?? {}).length === 1 &&
          content?.['application/json']?.schema?.$ref === ERROR_BODY_REF;
        if (!isCommon) continue;
        const example = { timestamp: '2026-11-21T19:15:31.083Z', status: Number(status), ...common.example };
        shared[common.name] = {
          ...response,
          content: { 'application/json': { schema: { $ref: ERROR_BODY_REF }, example } },
        };
        responses[status] = { $ref: `#/components/responses/${common.name}` };
      }
    }
  }
  const components = document.components as Schema;
  return {
    ...document,
    components: { ...components, responses: { ...(components.responses as Schema), ...shared } },
  };
}
