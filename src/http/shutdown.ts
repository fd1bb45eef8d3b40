// The requests under way when a stop's grace period runs out: the outgoing calls they wait
// on are given up, so that their routes answer 503 themselves; what is still unanswered a
// moment later is answered 503 here, and the connections close. The period starts when the
// app begins to close (on a signal, server.ts) and ends a second before the process must exit.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { commonHeaders, requestId } from './common-headers.js';
import { errorBody } from './error-handler.js';
import { SHUTTING_DOWN } from './errors.js';

/** How long before the grace period's end the requests still under way are cut short. */
const ANSWER_MS = 1000;

// Node keeps the response under way on its socket (early-errors.ts reads it too).
type ServerSocket = Socket & { _httpMessage?: ServerResponse | null };

export class Shutdown {
  readonly #stopping = new AbortController();
  readonly #sockets = new Set<ServerSocket>();

  constructor(
    private readonly app: FastifyInstance,
    /** How long a close may take before what is under way is cut short (SEARCHDECK_SHUTDOWN_GRACE_MS). */
    graceMs: number,
  ) {
    app.server.on('connection', (socket: ServerSocket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    let cut: NodeJS.Timeout | undefined;
    app.addHook('preClose', (done) => {
      cut = setTimeout(() => this.cutShort(ANSWER_MS / 2), Math.max(0, graceMs - ANSWER_MS)).unref();
      done();
    });
    app.addHook('onClose', (_app, done) => {
      clearTimeout(cut);
      done();
    });
  }

  /** Aborted when the grace period runs out: outgoing calls that requests wait on give up with it. */
  get signal(): AbortSignal {
    return this.#stopping.signal;
  }

  /**
   * Ends the grace period: gives up the outgoing calls of the requests under way, so that
   * their routes answer 503; `settleMs` later, answers 503 any request still unanswered and
   * closes the connections whose answer had begun but not ended.
   */
  cutShort(settleMs: number): void {
    const underWay = [...this.#sockets].filter((socket) => socket._httpMessage).length;
    this.app.log.warn(
      { requests: underWay },
      'shutdown: grace period over, answering requests under way 503',
    );
    this.#stopping.abort();
    setTimeout(() => this.#answerTheRest(), settleMs).unref();
  }

  #answerTheRest(): void {
    for (const socket of this.#sockets) {
      const res = socket._httpMessage;
      if (res?.writableEnded) continue; // answered; its connection closes once it is out
      try {
        if (res && !res.headersSent) answerShuttingDown(res);
        else socket.destroy();
      } catch {
        socket.destroy();
      }
    }
  }
}

/** 503 `not-ready` in the common body, with the headers every answer carries, closing the connection. */
function answerShuttingDown(res: ServerResponse): void {
  const body = errorBody('not-ready', SHUTTING_DOWN, (res.req.url ?? '').split('?')[0] ?? '');
  const id = requestId(res.req.headers['x-request-id']);
  const json = JSON.stringify({ ...body, requestId: id });
  res.shouldKeepAlive = false;
  res.writeHead(503, {
    ...commonHeaders(id, '', false),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(json)),
  });
  res.end(json);
}
