import type { Client, ConnectionManager, ZooKeeperException } from 'node-zookeeper-client';
import zookeeper from 'node-zookeeper-client';
import { withTimeout } from './timeout.js';

/**
 * The little of ZooKeeper searchdeck needs; every call is bounded and `close` always releases.
 * Calls made after the session expired reject: open a new session.
 */
export interface ZkSession {
  exists(path: string): Promise<boolean>;
  children(path: string): Promise<string[]>;
  /** The node's data (empty when it has none), or null when the node does not exist. */
  getData(path: string): Promise<Buffer | null>;
  /**
   * Follows the children of `path`: `onChange` hears the first list (empty while the node is
   * absent), which settles the promise, and every new list until the session closes or expires.
   */
  watchChildren(path: string, onChange: (children: readonly string[]) => void): Promise<void>;
  /** `listener` hears once that ZooKeeper expired the session; it follows nothing from then on. */
  onExpired(listener: () => void): void;
  close(): Promise<void>;
}

export type ZooKeeperFailure =
  | 'invalid-connect-string'
  | 'timeout'
  | 'session-refused'
  | 'no-node'
  | 'abandoned'
  | 'failed';

export class ZooKeeperError extends Error {
  constructor(
    readonly kind: ZooKeeperFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ZooKeeperError';
  }
}

export interface ZooKeeperOptions {
  /** The session timeout asked of the server (zkClientTimeout). */
  sessionTimeoutMs?: number;
  /** Gives up connecting when aborted: the attempt rejects at once and leaves nothing open. */
  signal?: AbortSignal | undefined;
}

// ConnectionManager.STATES in the library; not exported from its main module.
const CONNECTED = 2;
const CLOSED = -2;
// The library waits up to this long between rounds of reconnect attempts; a short wait keeps
// the time between our close() and the last timer firing short.
const SPIN_DELAY_MS = 100;
// How long a connected server gets to acknowledge the close-session request before we cut the socket.
const CLOSE_GRACE_MS = 300;

/**
 * Opens a session to the ensemble in `connectString` (`host:port[,host:port…][/chroot]`, paths
 * are then relative to the chroot), giving up after `timeoutMs`; the same bound applies to each call.
 */
export async function connectZooKeeper(
  connectString: string,
  timeoutMs: number,
  options: ZooKeeperOptions = {},
): Promise<ZkSession> {
  if (options.signal?.aborted) throw abandoned(connectString);
  let client: Client;
  try {
    client = zookeeper.createClient(connectString, {
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      spinDelay: SPIN_DELAY_MS,
      retries: 0,
    });
  } catch (error) {
    throw new ZooKeeperError(
      'invalid-connect-string',
      `invalid ZooKeeper connect string: ${reasonOf(error)}`,
    );
  }
  const lifecycle = new Lifecycle(client);
  const given = givenUp(options.signal, connectString);
  client.connect();
  try {
    await withTimeout(
      Promise.race([sessionEstablished(client), given.promise]),
      timeoutMs,
      () =>
        new ZooKeeperError(
          'timeout',
          `could not connect to ZooKeeper at ${connectString} within ${timeoutMs} ms`,
        ),
    );
  } catch (error) {
    await lifecycle.release();
    throw error;
  } finally {
    given.stopListening();
  }
  return new Session(client, lifecycle, timeoutMs);
}

function abandoned(connectString: string): ZooKeeperError {
  return new ZooKeeperError('abandoned', `gave up connecting to ZooKeeper at ${connectString}`);
}

/** Rejects once `signal` is aborted; never settles without one. */
function givenUp(
  signal: AbortSignal | undefined,
  connectString: string,
): { promise: Promise<never>; stopListening: () => void } {
  if (signal === undefined) return { promise: new Promise<never>(() => {}), stopListening: () => {} };
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(abandoned(connectString));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, stopListening: () => signal.removeEventListener('abort', onAbort) };
}

function sessionEstablished(client: Client): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (why: string) => () => {
      client.removeAllListeners('connected');
      reject(new ZooKeeperError('session-refused', `ZooKeeper refused the session (${why})`));
    };
    client.once('connected', () => {
      client.removeAllListeners('expired').removeAllListeners('authenticationFailed');
      resolve();
    });
    client.once('expired', refused('session expired'));
    client.once('authenticationFailed', refused('authentication failed'));
  });
}

/**
 * The library's `close()` only queues a close-session request: a client that never connected
 * keeps its socket, its connect timer (as long as the session timeout) and its reconnect loop.
 * This reaches into its connection manager to end all three.
 */
class Lifecycle {
  #closing = false;
  #released: Promise<void> | undefined;
  #onClosed: (() => void) | undefined;
  readonly #manager: ConnectionManager;

  constructor(private readonly client: Client) {
    this.#manager = client.connectionManager;
    const findNextServer = this.#manager.findNextServer.bind(this.#manager);
    // A reconnect already scheduled when we close must not open a new socket.
    this.#manager.findNextServer = (connectTo) =>
      findNextServer((server) => (this.#closing ? this.#onClosed?.() : connectTo(server)));
  }

  release(): Promise<void> {
    this.#released ??= this.#release();
    return this.#released;
  }

  async #release(): Promise<void> {
    this.#closing = true;
    const manager = this.#manager;
    if (manager.state === CLOSED) return;
    const closed = new Promise<void>((resolve) => {
      this.#onClosed = resolve;
      manager.on('state', (state: number) => state === CLOSED && resolve());
    });
    const wasConnected = manager.state === CONNECTED;
    const hadOpenSocket = manager.socket !== undefined && !manager.socket.destroyed;
    this.client.close();
    if (!wasConnected) {
      this.#cutSocket();
      // Between reconnect attempts nothing is open: the scheduled attempt will find us closing and do
      // nothing, so waiting for it would only stretch the check past its time-out.
      if (!hadOpenSocket) return;
    }
    await withTimeout(closed, CLOSE_GRACE_MS, () => new Error('close not acknowledged')).catch(() => {
      this.#cutSocket();
      return closed;
    });
  }

  #cutSocket(): void {
    if (this.#manager.connectTimeoutHandler) clearTimeout(this.#manager.connectTimeoutHandler);
    this.#manager.socket?.destroy();
  }
}

class Session implements ZkSession {
  // Calls queued while the connection is down get no answer when it closes; we settle them ourselves.
  readonly #inFlight = new Set<(error: Error) => void>();
  #closed = false;

  constructor(
    private readonly client: Client,
    private readonly lifecycle: Lifecycle,
    private readonly timeoutMs: number,
  ) {}

  exists(path: string): Promise<boolean> {
    return this.#call(`exists ${path}`, (done) =>
      this.client.exists(path, (error, stat) => done(error, stat !== null && stat !== undefined)),
    );
  }

  children(path: string): Promise<string[]> {
    return this.#call(`children of ${path}`, (done) =>
      this.client.getChildren(path, (error, children) => {
        if (error?.getCode() === zookeeper.Exception.NO_NODE) {
          done(new ZooKeeperError('no-node', `${path} does not exist`), []);
        } else {
          done(error, children);
        }
      }),
    );
  }

  getData(path: string): Promise<Buffer | null> {
    return this.#call(`data of ${path}`, (done) =>
      this.client.getData(path, (error, data) => {
        if (error?.getCode() === zookeeper.Exception.NO_NODE) done(null, null);
        else done(error, data ?? Buffer.alloc(0));
      }),
    );
  }

  async watchChildren(path: string, onChange: (children: readonly string[]) => void): Promise<void> {
    // One watcher function, so the library keeps one watch however often we read again.
    const watcher = (): void => void read().catch(() => {});
    const read = () =>
      this.#call(`children of ${path}`, (done: (error: Error | null, value: undefined) => void) =>
        this.client.getChildren(path, watcher, (error, children) => {
          if (error?.getCode() === zookeeper.Exception.NO_NODE) {
            // Told when the node appears: the watch of an absent node is an existence watch.
            this.client.exists(path, watcher, (absentError, stat) => {
              if (!absentError && stat) watcher();
            });
            this.#unlessClosed(() => onChange([]));
            done(null, undefined);
          } else if (error) {
            // The last list stands: the connection was lost, and reconnecting reads again.
            done(error, undefined);
          } else {
            this.#unlessClosed(() => onChange([...children]));
            done(null, undefined);
          }
        }),
      );
    // A change while disconnected may have passed unseen; the same session resumes, so read again.
    this.client.on('connected', watcher);
    await read();
  }

  onExpired(listener: () => void): void {
    this.client.once('expired', () => this.#unlessClosed(listener));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.client.removeAllListeners('connected').removeAllListeners('expired');
    const error = new ZooKeeperError('failed', 'the ZooKeeper session was closed');
    for (const reject of this.#inFlight) reject(error);
    await this.lifecycle.release();
  }

  #unlessClosed(act: () => void): void {
    if (!this.#closed) act();
  }

  #call<T>(
    what: string,
    start: (done: (error: ZooKeeperException | Error | null, value: T) => void) => void,
  ): Promise<T> {
    let cancel: (error: Error) => void = () => {};
    const call = new Promise<T>((resolve, reject) => {
      cancel = reject;
      try {
        start((error, value) => (error ? reject(asZooKeeperError(error, what)) : resolve(value)));
      } catch (error) {
        // The library asserts on bad paths synchronously.
        reject(new ZooKeeperError('failed', `${what}: ${reasonOf(error)}`));
      }
    });
    this.#inFlight.add(cancel);
    return withTimeout(
      call,
      this.timeoutMs,
      () => new ZooKeeperError('timeout', `ZooKeeper did not answer ${what} within ${this.timeoutMs} ms`),
    ).finally(() => this.#inFlight.delete(cancel));
  }
}

function asZooKeeperError(error: Error, what: string): ZooKeeperError {
  return error instanceof ZooKeeperError
    ? error
    : new ZooKeeperError('failed', `${what}: ${reasonOf(error)}`);
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
