// Requests answered before Fastify's routing, for the few kinds that make up nearly all of the
// traffic (a typeahead suggestion, a link check): a plain GET whose credential is already
// known and whose query is simple. Such a request needs none of what Fastify does per request
// (a request and reply object, a child logger, the hook chain, schema validation, a nextTick
// per hook stage), and that machinery cost more than the answer itself. A lane's answer is
// byte for byte the one its route gives (headers in the same order); anything else (a
// credential that needs checking, a malformed or unusual query, HTTPS, logging of every
// request, shutdown) goes to the route as before, which stays and is the reference.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { requestObserver } from './metrics.js';
import { prints } from './request-logging.js';
import { textProblem } from './well-formed-text.js';

/** One path answered before routing. */
export interface FastLane {
  /** The path the lane answers; its query string follows a `?`. */
  readonly path: string;
  /**
   * Answers the request with 200 and says true, or says false and leaves it untouched, for
   * the route to answer. `search` is the query string without its `?` ('' for none). A
   * promise that rejects leaves the request to the route too.
   */
  answer(req: IncomingMessage, res: ServerResponse, search: string): boolean | Promise<boolean>;
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The lanes of one app. Lanes are added while the routes are declared; when the app is ready
 * they are put in front of its request handler, once, for all of them.
 */
export class FastLanes {
  readonly #lanes = new Map<string, FastLane>();
  readonly #answered = new Map<string, number>();
  #closing = false;

  constructor(
    private readonly app: FastifyInstance,
    metrics: Registry,
    /** False (a test comparing lanes with routes) leaves every request to the routes. */
    private readonly enabled = true,
  ) {
    const observe = requestObserver(metrics);
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
    app.addHook('onReady', (done) => {
      if (this.#lanes.size > 0) this.#install(observe);
      done();
    });
  }

  /** Adds a lane; without effect when lanes are off. */
  add(lane: FastLane): void {
    if (this.enabled) this.#lanes.set(lane.path, lane);
  }

  /** How many requests of `path` its lane has answered (0 when it has none). */
  answered(path: string): number {
    return this.#answered.get(path) ?? 0;
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
      const started = performance.now();
      const lane = this.#laneOf(req);
      if (lane === undefined) {
        route(req, res);
        return;
      }
      const url = req.url as string;
      const search = url.length > lane.path.length + 1 ? url.slice(lane.path.length + 1) : '';
      const answered = (done: boolean) => {
        if (!done) return route(req, res);
        observe(lane.path, 'GET', 200, (performance.now() - started) / 1000);
        this.#answered.set(lane.path, this.answered(lane.path) + 1);
      };
      let outcome: boolean | Promise<boolean>;
      try {
        outcome = lane.answer(req, res, search);
      } catch {
        outcome = false;
      }
      if (typeof outcome === 'boolean') answered(outcome);
      else outcome.then(answered, () => (res.headersSent ? res.destroy() : route(req, res)));
    });
  }

  /**
   * The lane of a request that may take one: a GET of a lane's path, with nothing that any
   * route treats specially (a body, Expect, TLS or a proxy's protocol, which decide HSTS),
   * while the app is not closing and does not log every request.
   */
  #laneOf(req: IncomingMessage): FastLane | undefined {
    if (req.method !== 'GET' || this.#closing) return undefined;
    const url = req.url ?? '';
    const question = url.indexOf('?');
    const lane = this.#lanes.get(question < 0 ? url : url.slice(0, question));
    if (lane === undefined) return undefined;
    const headers = req.headers;
    if (
      headers.host === undefined ||
      headers['x-forwarded-proto'] !== undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined ||
      (req.socket as { encrypted?: boolean }).encrypted ||
      // A logger that names no level is Fastify's silent stand-in (`logger: false`).
      (this.app.log.level !== undefined && prints(this.app.log, 'info'))
    ) {
      return undefined;
    }
    return lane;
  }
}

/**
 * The values of a query string when it is one a route's schema takes as it is: every name
 * one of `names`, each at most once, each value well-formed text of at most `maxLength`
 * UTF-16 units, decoded as Fastify's parser decodes it (`+` a space, `%XX` UTF-8); else
 * undefined, and the route decides.
 */
export function plainQuery(
  search: string,
  names: ReadonlySet<string>,
  maxLength: number,
): Map<string, string> | undefined {
  const pairs = plainPairs(search, maxLength);
  if (pairs === undefined) return undefined;
  const values = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (!names.has(name) || values.has(name)) return undefined;
    values.set(name, value);
  }
  return values;
}

/**
 * The name and value pairs of a query string, in order, when each is written plainly (a
 * name without escapes, `=`, a value that decodes to well-formed text of at most
 * `maxLength` UTF-16 units); else undefined.
 */
export function plainPairs(search: string, maxLength: number): Array<[string, string]> | undefined {
  const pairs: Array<[string, string]> = [];
  if (search === '') return pairs;
  for (const pair of search.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0) return undefined;
    const name = pair.slice(0, equals);
    if (name.includes('%') || name.includes('+')) return undefined;
    const raw = pair.slice(equals + 1);
    let value: string;
    try {
      value = raw.includes('%') || raw.includes('+') ? decodeURIComponent(raw.replace(/\+/g, ' ')) : raw;
    } catch {
      return undefined;
    }
    if (value.length > maxLength || textProblem(value) !== undefined) return undefined;
    pairs.push([name, value]);
  }
  return pairs;
}
