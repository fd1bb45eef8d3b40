// Answers given before Fastify's routing, for the few routes that carry nearly all of the
// traffic (a typeahead suggestion, a link check, an evaluation). Such a request needs none of
// what Fastify does per request (a request and reply object, a child logger, the hook chain,
// a nextTick per hook stage), and on these paths that machinery costs as much as the answer.
//
// It is not a second router. A route asks for it in its own options (`config.early`), and
// the early answer runs the route's own parts: the path is the route's (static paths only:
// a route with parameters is found by the router alone), the query is parsed by the app's
// query-string parser and checked by the route's compiled querystring schema, the answer
// comes from the same endpoint function the handler calls, and the headers and the log line
// are made by the functions the hooks use. Whenever the early answer cannot be the route's
// (a credential that needs checking, a query the schema refuses, HTTPS, a proxy's headers,
// debug logging, shutdown), the request goes to the route, which stays the reference.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Registry } from 'prom-client';
import { commonHeaders, requestId } from './common-headers.js';
import { requestObserver } from './metrics.js';
import { parseQueryString } from './query-string.js';
import { prints, type RequestLine, requestLine } from './request-logging.js';
import { compiledSerializer } from './serialization.js';
import type { CompileTime } from './validation.js';
import { compiledQueryValidator } from './validation.js';
import { malformedText } from './well-formed-text.js';

/** What an endpoint answers early: a 200 whose body the route's own serializer (its 200 schema) writes. */
export interface EarlyReply {
  readonly value: unknown;
}

/**
 * A route's early answer: its reply, or undefined to leave the request to the route (which
 * then answers it, refusals included). `query` has passed the route's querystring schema.
 * A promise that rejects leaves the request to the route too.
 */
export type EarlyEndpoint<Query = never> = (
  req: IncomingMessage,
  query: Query,
) => EarlyReply | undefined | Promise<EarlyReply | undefined>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers the plain requests of this GET route before routing (http/early-answers.ts). */
    early?: EarlyEndpoint<never>;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
type Validate = (query: unknown) => boolean;

interface EarlyRoute {
  readonly url: string;
  readonly endpoint: EarlyEndpoint<unknown>;
  readonly schema: FastifySchema | undefined;
  validate?: Validate;
  serialize?: (value: unknown) => string;
  answered: number;
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The early answers of one app: collected from the routes as they are declared, put in front
 * of the app's request handler once the app is ready.
 */
export class EarlyAnswers {
  readonly #routes = new Map<string, EarlyRoute>();
  #closing = false;

  constructor(
    private readonly app: FastifyInstance,
    metrics: Registry,
    options: {
      /** False (a test comparing early answers with the routes) leaves every request to the routes. */
      enabled: boolean;
      /** Whether X-Forwarded-* may speak for the client (a trusted proxy): such requests go to the routes. */
      trustsProxy: boolean;
      compileTime: CompileTime;
    },
  ) {
    const observe = requestObserver(metrics);
    app.addHook('onRoute', (route) => {
      const endpoint = route.config?.early as EarlyEndpoint<unknown> | undefined;
      // A route with parameters (`/api/apps/:app/…`, `/studios/:studioId/…`) is left to the router.
      if (endpoint === undefined || !options.enabled || route.method !== 'GET' || route.url.includes(':'))
        return;
      this.#routes.set(route.url, {
        url: route.url,
        endpoint,
        schema: route.schema as FastifySchema | undefined,
        answered: 0,
      });
    });
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
    app.addHook('onReady', (done) => {
      if (this.#routes.size > 0) {
        for (const route of this.#routes.values()) {
          route.validate = compiledQueryValidator(app, route.schema?.querystring, options.compileTime);
          const answer = (route.schema?.response as Record<number, unknown> | undefined)?.[200];
          route.serialize = compiledSerializer(app, answer, options.compileTime);
        }
        this.#install(observe, options.trustsProxy);
      }
      done();
    });
  }

  /** How many requests of the route at `url` were answered early (0 when it has no early answer). */
  answered(url: string): number {
    return this.#routes.get(url)?.answered ?? 0;
  }

  #install(observe: ReturnType<typeof requestObserver>, trustsProxy: boolean): void {
    const server = this.app.server;
    const handlers = server.listeners('request') as RequestListener[];
    const [routed] = handlers;
    if (handlers.length !== 1 || routed === undefined) {
      this.app.log.warn('early answers not installed: the server has other request handlers');
      return;
    }
    server.removeListener('request', routed);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // Every other request of the app passes here too: it costs a map lookup, no more.
      const found = this.#routeOf(req, trustsProxy);
      const logs = found === undefined ? 'all' : this.#logs();
      if (found === undefined || logs === 'all') {
        routed(req, res);
        return;
      }
      const { route, query } = found;
      const started = performance.now();
      const answer = (reply: EarlyReply | undefined) => {
        if (reply === undefined) {
          routed(req, res);
          return;
        }
        const id = requestId(req.headers['x-request-id']);
        const body = (route.serialize as (value: unknown) => string)(reply.value);
        const headers = commonHeaders(id, req.url as string, false);
        headers['content-type'] = JSON_TYPE;
        headers['content-length'] = String(Buffer.byteLength(body));
        res.writeHead(200, headers);
        res.end(body);
        const ms = performance.now() - started;
        observe(route.url, 'GET', 200, ms / 1000);
        route.answered++;
        if (logs === 'line') {
          const line: RequestLine = {
            method: 'GET',
            url: req.url as string,
            client: req.socket.remoteAddress,
            status: 200,
            ms,
          };
          this.app.log.info({ reqId: id, ...requestLine(line) }, 'request completed');
        }
      };
      // An endpoint that failed before writing leaves the request to the route; one that
      // failed while writing cannot, and its connection is closed.
      const failed = () => (res.headersSent ? res.destroy() : routed(req, res));
      let outcome: ReturnType<EarlyEndpoint<unknown>>;
      try {
        outcome = route.endpoint(req, query);
      } catch {
        failed();
        return;
      }
      if (outcome instanceof Promise) outcome.then(answer, failed);
      else answer(outcome);
    });
  }

  /**
   * What the app logs of a request answered 200: nothing, its one line at its end (which an
   * early answer writes as the route would), or more (debug: a line as it comes in too,
   * which only the route writes).
   */
  #logs(): 'none' | 'line' | 'all' {
    const log = this.app.log;
    // A logger that names no level is Fastify's silent stand-in (`logger: false`).
    if (log.level === undefined || !prints(log, 'info')) return 'none';
    return prints(log, 'debug') ? 'all' : 'line';
  }

  /**
   * The route of a request that may be answered early, with its query as the route's schema
   * takes it: a GET of the route's very path, with nothing that any route treats specially
   * (a body, Expect, TLS, a proxy's headers, which decide the client, host and HSTS), while
   * the app is not closing. (Debug logging, which logs every request as it comes in, is
   * checked by the caller.)
   */
  #routeOf(req: IncomingMessage, trustsProxy: boolean): { route: EarlyRoute; query: unknown } | undefined {
    if (req.method !== 'GET' || this.#closing) return undefined;
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    const route = this.#routes.get(mark < 0 ? url : url.slice(0, mark));
    if (route?.validate === undefined) return undefined;
    const headers = req.headers;
    if (
      headers.host === undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined ||
      (req.socket as { encrypted?: boolean }).encrypted ||
      headers['x-forwarded-proto'] !== undefined ||
      (trustsProxy && (headers['x-forwarded-for'] !== undefined || headers['x-forwarded-host'] !== undefined))
    ) {
      return undefined;
    }
    const query = parseQueryString(mark < 0 ? '' : url.slice(mark + 1));
    if (malformedText(query) !== undefined || !route.validate(query)) return undefined;
    return { route, query };
  }
}
