// Requests generated from the OpenAPI document: valid-looking ones from each operation's
// schemas, then mutated with what hostile clients send.
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

export interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string; schema: Schema }>;
  body: Schema | undefined;
}

export interface Document {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'> & { requestBody?: RequestBody }>>;
  components: { schemas: Record<string, Schema> };
}

interface RequestBody {
  content: Record<string, { schema: Schema }>;
}

/** A request to send: a raw JSON text body, so that it can hold what JSON.stringify cannot. */
export interface FuzzRequest {
  operation: Operation;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  json: string | undefined;
  /** Wrong credentials come from elsewhere, so that the failed-login limit does not block the rest. */
  remoteAddress: string;
}

/** The operations of the document, with their `$ref`s resolved. */
export function operationsOf(doc: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const json = operation.requestBody?.content['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: json === undefined ? undefined : resolve(json, doc),
      });
    }
  }
  return operations;
}

function resolve(schema: Schema, doc: Document, depth = 0): Schema {
  if (depth > 8) return {};
  if (typeof schema.$ref === 'string') {
    return resolve(doc.components.schemas[schema.$ref.split('/').at(-1)!] ?? {}, doc, depth + 1);
  }
  const out: Schema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Schema>).map(([k, v]) => [
        k,
        resolve(v, doc, depth + 1),
      ]),
    );
  }
  if (schema.items) out.items = resolve(schema.items as Schema, doc, depth + 1);
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key]))
      out[key] = (schema[key] as Schema[]).map((s) => resolve(s, doc, depth + 1));
  }
  return out;
}

// Raw JSON number texts no JavaScript value serialises to; they stand in the body as markers.
const RAW = { '\u0001inf': '1e309', '\u0001-inf': '-1e309', '\u0001big': '1e21' } as const;

const hostileTexts = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '\udc00\ud800',
  '\uFFFD',
  'x'.repeat(3000),
  '😀',
  '',
  ' ',
  '1e309',
  'Infinity',
  '-Infinity',
  'NaN',
  '99999999999999999999999',
  '../..',
  "'; drop table rules; --",
  '%00',
  'null',
];

const hostileValues: unknown[] = [
  ...hostileTexts,
  ...Object.keys(RAW),
  -1,
  0,
  1.5,
  2 ** 53,
  -(2 ** 31) - 1,
  true,
  false,
  null,
  [],
  {},
  [null],
  { a: 1 },
];

/** A value the schema describes (roughly: patterns and formats are approximated). */
function described(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key]))
      return fc.oneof(...(schema[key] as Schema[]).map((s) => described(s, depth)));
  }
  const type = [schema.type].flat()[0];
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(Number(schema.minimum ?? -1000), Number.MIN_SAFE_INTEGER),
        max: Math.min(Number(schema.maximum ?? 1000), Number.MAX_SAFE_INTEGER),
      });
    case 'number':
      return fc.double({
        min: Number(schema.minimum ?? schema.exclusiveMinimum ?? -1000),
        max: Number(schema.maximum ?? 1000),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(described((schema.items ?? {}) as Schema, depth + 1), {
        minLength: Number(schema.minItems ?? 0),
        maxLength: Math.max(Number(schema.minItems ?? 0), Math.min(Number(schema.maxItems ?? 3), 3)),
      });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const members = Object.fromEntries(
        Object.entries(properties).map(([k, v]) => [k, described(v, depth + 1)]),
      );
      return fc.record(members, { requiredKeys: required.filter((k) => k in members) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = Number(schema.minLength ?? 0);
  const max = Math.max(min, Math.min(Number(schema.maxLength ?? 30), 30));
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (schema.format === 'uri') return fc.constantFrom('https://example.invalid/a', 'http://127.0.0.1:1/hook');
  if (schema.format === 'uuid') return fc.uuid();
  if (typeof schema.pattern === 'string') {
    // fast-check cannot generate from lookarounds (`(?!…)`); without them the strings only
    // sometimes miss the pattern, which the fuzzing welcomes.
    const pattern = withoutLookarounds(schema.pattern);
    return fc.stringMatching(new RegExp(pattern)).map((s) => s.slice(0, max).padEnd(min, 'a'));
  }
  return fc.string({
    minLength: min,
    maxLength: max,
    unit: fc.constantFrom('a', 'b', 'Z', '9', ' ', '-', 'é', '😀', ',', ':'),
  });
}

/** Replaces one member or item somewhere in `value` with a hostile one (or adds an unknown member). */
function mutated(value: unknown): fc.Arbitrary<unknown> {
  return fc.tuple(fc.nat(), fc.constantFrom(...hostileValues), fc.boolean()).map(([pick, hostile, extra]) => {
    const copy = structuredClone(value);
    const spots = spotsIn(copy);
    if (spots.length === 0) return hostile;
    const [container, key] = spots[pick % spots.length]!;
    if (extra && !Array.isArray(container))
      (container as Record<string, unknown>)[`unknown${pick % 7}`] = hostile;
    else (container as Record<string | number, unknown>)[key] = hostile;
    return copy;
  });
}

function spotsIn(value: unknown): Array<[object, string | number]> {
  const spots: Array<[object, string | number]> = [];
  const visit = (current: unknown) => {
    if (Array.isArray(current)) {
      current.forEach((item, i) => {
        spots.push([current, i]);
        visit(item);
      });
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, member] of Object.entries(current)) {
        spots.push([current, key]);
        visit(member);
      }
    }
  };
  visit(value);
  return spots;
}

/** JSON text of a generated body, with the raw-number markers written as those numbers. */
export function jsonText(value: unknown): string {
  let text = JSON.stringify(value) ?? 'null';
  for (const [marker, raw] of Object.entries(RAW)) text = text.replaceAll(JSON.stringify(marker), raw);
  return text;
}

/** One line saying what a request sends. */
export function describeRequest(request: FuzzRequest): string {
  const text = `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${request.json ?? ''}`;
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}

function urlPart(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate has no UTF-8 form; send what a client would: its surrogate's bytes.
    return '%ED%A0%80';
  }
}

/** A query or path value: from the schema, or hostile. */
function parameterValue(schema: Schema, known: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: described(schema) },
    { weight: 3, arbitrary: known.length > 0 ? fc.constantFrom(...known) : described(schema) },
    { weight: 2, arbitrary: fc.constantFrom(...hostileTexts, '-1', '0', '1.5', '1e21', '') },
  );
}

export interface Credentials {
  admin: string;
  bearer: string;
  embed: string;
}

/** The credential each interface takes; `none` leaves it out. */
function credentialFor(path: string, credentials: Credentials): string {
  if (path.startsWith('/typeahead')) return credentials.embed;
  if (path.startsWith('/em-rules') || path.startsWith('/query-rewrites') || path.startsWith('/studios/')) {
    return credentials.bearer;
  }
  return credentials.admin;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** Requests for one operation: mostly as documented, sometimes mutated, sometimes unauthenticated. */
export function requestFor(
  operation: Operation,
  credentials: Credentials,
  knownIds: (parameter: string, path: string) => readonly string[],
): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const path = fc.tuple(
    ...pathParameters.map((p) => parameterValue(p.schema, knownIds(p.name, operation.path))),
  );
  const query = fc.array(
    fc.tuple(
      queryParameters.length > 0 ? fc.constantFrom(...queryParameters) : fc.constant(undefined),
      fc.nat(),
    ),
    { maxLength: 4 },
  );
  const queryValues = fc.tuple(
    ...queryParameters.map((p) => fc.option(parameterValue(p.schema, []), { freq: 3, nil: undefined })),
  );
  const body = operation.body
    ? described(operation.body).chain((valid) =>
        fc.oneof(
          { weight: 2, arbitrary: fc.constant(valid) },
          { weight: 2, arbitrary: mutated(valid) },
          // An empty object: nothing to change, or every required member missing.
          { weight: 1, arbitrary: fc.constant({}) },
        ),
      )
    : fc.constant(undefined);
  const oddHeaders = fc.record(
    {
      'if-match': fc.constantFrom('*', '"x"', 'W/"2026-01-01T00:00:00.000Z"', '\u00ff'),
      'content-type': fc.constantFrom(
        'text/plain',
        'application/json; charset=latin1',
        'application/x-ndjson',
      ),
      'x-request-id': fc.constantFrom('fuzz-1', 'x'.repeat(300), 'a b'),
      accept: fc.constantFrom('application/xml', '*/*', 'text/html'),
    },
    { requiredKeys: [] },
  );
  // Mostly none, so that most requests get past content negotiation to the handler.
  const headers = fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: oddHeaders });
  return fc
    .record({
      path,
      query,
      queryValues,
      body,
      headers,
      credential: fc.oneof(
        { weight: 9, arbitrary: fc.constant('right') },
        { weight: 1, arbitrary: fc.constantFrom('none', 'Bearer nonsense', 'Basic Og==', 'Basic YSUwMDpi') },
      ),
      otherMethod: fc.oneof(
        { weight: 12, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
    })
    .map(({ path: values, query: repeats, queryValues: chosen, body, headers, credential, otherMethod }) => {
      let url = operation.path;
      pathParameters.forEach((p, i) => {
        url = url.replace(`{${p.name}}`, urlPart(values[i]));
      });
      // A prefix's parameter the document does not list (`/studios/{studioId}/em-rules`).
      url = url.replace(/\{(\w+)\}/g, (_, name: string) => knownIds(name, operation.path)[0] ?? 'x');
      const pairs: string[] = [];
      queryParameters.forEach((p, i) => {
        if (chosen[i] !== undefined) pairs.push(`${p.name}=${urlPart(chosen[i])}`);
      });
      // Repeated parameters: the same name again, with another value.
      for (const [parameter, n] of repeats) {
        if (parameter) pairs.push(`${parameter.name}=${urlPart(hostileTexts[n % hostileTexts.length])}`);
      }
      if (pairs.length > 0) url += `?${pairs.join('&')}`;
      const all: Record<string, string> = { ...headers };
      if (credential === 'right') all.authorization = credentialFor(operation.path, credentials);
      else if (credential !== 'none') all.authorization = credential;
      const method = otherMethod ?? operation.method;
      const hasBody = body !== undefined && !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method);
      if (hasBody && all['content-type'] === undefined) all['content-type'] = 'application/json';
      if (!hasBody) delete all['content-type'];
      const request: FuzzRequest = {
        operation,
        method,
        url,
        headers: all,
        body: hasBody ? body : undefined,
        json: hasBody ? jsonText(body) : undefined,
        remoteAddress: credential === 'right' ? '127.0.0.1' : '10.9.8.7',
      };
      // Counterexamples show the request as sent, not the operation's schemas.
      return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
    });
}

/** The pattern without its lookaround groups (`(?!…)`, `(?=…)`, `(?<!…)`, `(?<=…)`), nested ones included. */
function withoutLookarounds(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
      continue;
    }
    if (!/^\(\?<?[=!]/.test(pattern.slice(i))) {
      out += pattern[i];
      continue;
    }
    // Skip to the parenthesis that closes this group.
    let depth = 0;
    for (; i < pattern.length; i++) {
      if (pattern[i] === '\\') i++;
      else if (pattern[i] === '(') depth++;
      else if (pattern[i] === ')' && --depth === 0) break;
    }
  }
  return out;
}
