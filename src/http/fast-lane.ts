// Requests answered before Fastify's routing, for the few kinds that make up nearly all of the
// traffic (a typeahead suggestion, a link check): a plain GET whose credential is already
// known and whose query is simple. Such a request needs none of what Fastify does per request
// (a request and reply object, a child logger, the hook chain, schema validation, a nextTick
// per hook stage), and that machinery cost more than the answer itself. A lane's answer is
// byte for byte the one its route gives (headers in the same order); anything else (a
// credential that needs checking, a malformed or unusual query, HTTPS, debug logging of every
// request, shutdown) goes to the route as before, which stays and is the reference.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { requestId } from './common-headers.js';
import { requestObserver } from './metrics.js';
import { loggedUrl, prints } from './request-logging.js';
import { DATA_HEADERS } from './security-headers.js';
import { textProblem } from './well-formed-text.js';

/** One path, or the paths under one prefix, answered before routing. */
export interface FastLane {
  /** The path the lane answers (its query string follows a `?`), or the prefix of its paths. */
  readonly path: string;
  /**
   * Set for a lane of paths with parameters: `path` is then their common prefix, and this is
   * the route's pattern, under which the lane's answers are counted.
   */
  readonly pattern?: string;
  /**
   * Answers the request with 200 and says true, or says false and leaves it untouched, for
   * the route to answer. `rest` is the query string without its `?` ('' for none); for a
   * lane with a pattern, all of the URL after the prefix. A promise that rejects leaves the
   * request to the route too.
   */
  answer(req: IncomingMessage, res: ServerResponse, rest: string): boolean | Promise<boolean>;
}

const DATA_HEADER_ENTRIES = Object.entries(DATA_HEADERS);
const JSON_TYPE = 'application/json; charset=utf-8';

/** Where a lane's answer keeps its request id, for the request's log line. */
const REQUEST_ID = Symbol('laneRequestId');
type LaneRequest = IncomingMessage & { [REQUEST_ID]?: string };

/** The headers every route's answer starts with, in the order its hooks set them: the request id, then the data-answer set. */
export function commonLaneHeaders(req: IncomingMessage): Record<string, string> {
  const id = requestId(req.headers['x-request-id']);
  (req as LaneRequest)[REQUEST_ID] = id;
  const out: Record<string, string> = { 'x-request-id': id };
  for (const [name, value] of DATA_HEADER_ENTRIES) out[name] = value;
  return out;
}

/** Answers 200 with a JSON body after the common headers, as a route whose hooks add no others does. */
export function answerJson(req: IncomingMessage, res: ServerResponse, body: string): void {
  const out = commonLaneHeaders(req);
  out['content-type'] = JSON_TYPE;
  out['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(200, out);
  res.end(body);
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The lanes of one app. Lanes are added while the routes are declared; when the app is ready
 * they are put in front of its request handler, once, for all of them.
 */
export class FastLanes {
  // A few lanes, looked for in order: cheaper than cutting the path out of each URL for a map.
  readonly #lanes: Array<{ lane: FastLane; answered: number }> = [];
  #closing = false;

  constructor(
    private readonly app: FastifyInstance,
    metrics: Registry,
    /** False (a test comparing lanes with routes) leaves every request to the routes. */
    private readonly enabled = true,
    /** Whether X-Forwarded-For names the client (a trusted proxy): such requests go to the routes when logged. */
    private readonly trustsProxy = false,
  ) {
    const observe = requestObserver(metrics);
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
    app.addHook('onReady', (done) => {
      if (this.#lanes.length > 0) this.#install(observe);
      done();
    });
  }

  /** Adds a lane; without effect when lanes are off. */
  add(lane: FastLane): void {
    if (this.enabled) this.#lanes.push({ lane, answered: 0 });
  }

  /** How many requests of `route` (a lane's path or pattern) its lane has answered (0 when it has none). */
  answered(route: string): number {
    return this.#lanes.find(({ lane }) => (lane.pattern ?? lane.path) === route)?.answered ?? 0;
  }

  #install(observe: ReturnType<typeof requestObserver>): void {
    const server = this.app.server;
    const handlers = server.listeners('request') as RequestListener[];
    const [route] = handlers;
    if (handlers.length !== 1 || route === undefined) {
      this.app.log.warn('fast lanes not installed: the server has other request handlers');
      return;
    }
    server.removeListener('request', route);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const logs = this.#logs();
      const entry = this.#entryOf(req, logs);
      if (entry === undefined) {
        route(req, res);
        return;
      }
      const started = performance.now();
      const { lane } = entry;
      const url = req.url as string;
      const after = lane.pattern === undefined ? lane.path.length + 1 : lane.path.length;
      const rest = url.length > after ? url.slice(after) : '';
      const counted = () => {
        const ms = performance.now() - started;
        observe(lane.pattern ?? lane.path, 'GET', 200, ms / 1000);
        entry.answered++;
        // The line the route would log (request-logging.ts), under the same child binding.
        if (logs === 'line') {
          this.app.log.info(
            {
              reqId: (req as LaneRequest)[REQUEST_ID],
              method: 'GET',
              url: loggedUrl(url),
              client: req.socket.remoteAddress,
              status: 200,
              ms: Math.round(ms * 100) / 100,
            },
            'request completed',
          );
        }
      };
      // A lane that failed before writing leaves the request to the route; one that failed
      // while writing cannot, and its connection is closed.
      const failed = () => (res.headersSent ? res.destroy() : route(req, res));
      let outcome: boolean | Promise<boolean>;
      try {
        outcome = lane.answer(req, res, rest);
      } catch {
        failed();
        return;
      }
      if (outcome === true) counted();
      else if (outcome === false) route(req, res);
      else outcome.then((done) => (done ? counted() : route(req, res)), failed);
    });
  }

  /**
   * What the app logs of a request answered 200: nothing, its one line at its end (which a
   * lane writes as the route would), or more (debug: a line as it comes in too, which only
   * the route writes).
   */
  #logs(): 'none' | 'line' | 'all' {
    const log = this.app.log;
    // A logger that names no level is Fastify's silent stand-in (`logger: false`).
    if (log.level === undefined || !prints(log, 'info')) return 'none';
    return prints(log, 'debug') ? 'all' : 'line';
  }

  /**
   * The lane of a request that may take one: a GET of a lane's path, with nothing that any
   * route treats specially (a body, Expect, TLS or a proxy's protocol, which decide HSTS;
   * when logged, a proxy's client address), while the app is not closing and does not log
   * every request as it comes in.
   */
  #entryOf(
    req: IncomingMessage,
    logs: 'none' | 'line' | 'all',
  ): { lane: FastLane; answered: number } | undefined {
    if (req.method !== 'GET' || this.#closing) return undefined;
    const url = req.url ?? '';
    const entry = this.#lanes.find(({ lane: { path, pattern } }) => {
      if (!url.startsWith(path)) return false;
      return (
        pattern !== undefined || url.length === path.length || url.charCodeAt(path.length) === 63 /* ? */
      );
    });
    if (entry === undefined) return undefined;
    const headers = req.headers;
    if (
      headers.host === undefined ||
      headers['x-forwarded-proto'] !== undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined ||
      (req.socket as { encrypted?: boolean }).encrypted ||
      logs === 'all' ||
      (logs === 'line' && this.trustsProxy && headers['x-forwarded-for'] !== undefined)
    ) {
      return undefined;
    }
    return entry;
  }
}

/**
 * Reads a query string whose pairs are all written plainly (a name without escapes, `=`, a
 * value that decodes, as Fastify's parser decodes it, to well-formed text of at most
 * `maxLength` UTF-16 units), giving each pair in order to `take`. False as soon as a pair is
 * not plain or `take` declines it: then the route decides.
 */
export function readPlainQuery(
  search: string,
  maxLength: number,
  take: (name: string, value: string) => boolean,
): boolean {
  if (search === '') return true;
  let start = 0;
  while (start <= search.length) {
    let end = search.indexOf('&', start);
    if (end < 0) end = search.length;
    const equals = search.indexOf('=', start);
    if (equals < 0 || equals > end) return false;
    const name = search.slice(start, equals);
    if (name.includes('%') || name.includes('+')) return false;
    const raw = search.slice(equals + 1, end);
    let value: string;
    try {
      value = raw.includes('%') || raw.includes('+') ? decodeURIComponent(raw.replace(/\+/g, ' ')) : raw;
    } catch {
      return false;
    }
    if (value.length > maxLength || textProblem(value) !== undefined || !take(name, value)) return false;
    start = end + 1;
  }
  return true;
}

/**
 * The values of a plainly written query string (see `readPlainQuery`) whose names are all
 * among `names`, each at most once; else undefined.
 */
export function plainQuery(
  search: string,
  names: ReadonlySet<string>,
  maxLength: number,
): Map<string, string> | undefined {
  const values = new Map<string, string>();
  const plain = readPlainQuery(search, maxLength, (name, value) => {
    if (!names.has(name) || values.has(name)) return false;
    values.set(name, value);
    return true;
  });
  return plain ? values : undefined;
}
