// The Solr nodes a cluster serves queries on, kept current: a SolrCloud's /live_nodes watched
// in ZooKeeper (not read per request), or the one URL of a standalone node.

import type { ClusterConnectionSettings } from './connection-settings.js';
import { basicCredentials } from './connection-settings.js';
import type { BasicCredentials } from './solr.js';
import { baseUrlForNodeName, redactUrl, urlSchemeFrom } from './solr-urls.js';
import { connectZooKeeper, type ZkSession } from './zookeeper.js';

export interface SolrNode {
  /** The live-node name (`host:port_solr`), or the standalone URL without credentials. */
  name: string;
  baseUrl: string;
}

/** Where a cluster's queries go, kept current until closed. */
export interface LiveNodes {
  nodes(): readonly SolrNode[];
  readonly credentials: BasicCredentials | undefined;
  close(): Promise<void>;
}

/** What a watch tells its owner about its ZooKeeper session, for the log. */
export interface LiveNodesEvents {
  /** A session is being opened to ZooKeeper at `connectString` (the first, or after an expiry). */
  connecting?(connectString: string): void;
  /** ZooKeeper expired the session; a new one is being opened, the last list serves meanwhile. */
  expired?(): void;
  /** Opening the new session failed; it is tried again after `retryInMs`. */
  reopenFailed?(error: unknown, retryInMs: number): void;
  /** A new session follows the list again. */
  reopened?(): void;
}

// Between attempts to open a new session after an expiry: doubling from the first, up to the last.
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5000;

/**
 * Opens the node list of a cluster: for a cloud, a watch on `/live_nodes` that opens a new
 * session whenever ZooKeeper expires its session. Resolves once the list is first read; `signal`
 * gives up an opening still under way (it rejects, and leaves no session open).
 */
export async function openLiveNodes(
  settings: ClusterConnectionSettings,
  events: LiveNodesEvents = {},
  signal?: AbortSignal,
): Promise<LiveNodes> {
  const credentials = basicCredentials(settings.authConfig);
  if (!settings.cloud) {
    const baseUrl = settings.connectString.replace(/\/+$/, '');
    const nodes = [{ name: redactUrl(baseUrl), baseUrl }];
    return { nodes: () => nodes, credentials, close: async () => {} };
  }
  const watched = new WatchedLiveNodes(settings, credentials, events);
  await watched.open(signal);
  return watched;
}

class WatchedLiveNodes implements LiveNodes {
  #nodes: readonly SolrNode[] = [];
  #session: ZkSession | undefined;
  #closed = false;
  #retry: { timer: ReturnType<typeof setTimeout>; wake: () => void } | undefined;
  #reopening: Promise<void> | undefined;

  constructor(
    private readonly settings: ClusterConnectionSettings,
    readonly credentials: BasicCredentials | undefined,
    private readonly events: LiveNodesEvents,
  ) {}

  nodes(): readonly SolrNode[] {
    return this.#nodes;
  }

  /**
   * One session: the URL scheme from /clusterprops.json, then the watch of /live_nodes. An abort
   * of `signal` before the list is read closes the session, which rejects the reads under way.
   */
  async open(signal?: AbortSignal): Promise<void> {
    const { connectString, zkConnectTimeout, zkClientTimeout } = this.settings;
    this.events.connecting?.(connectString);
    const session = await connectZooKeeper(connectString, zkConnectTimeout, {
      sessionTimeoutMs: zkClientTimeout,
      signal,
    });
    const abandon = () => void session.close();
    signal?.addEventListener('abort', abandon, { once: true });
    try {
      const scheme = urlSchemeFrom(await session.getData('/clusterprops.json'));
      signal?.throwIfAborted();
      await session.watchChildren('/live_nodes', (names) => {
        this.#nodes = [...names].sort().map((name) => ({ name, baseUrl: baseUrlForNodeName(name, scheme) }));
      });
      session.onExpired(() => this.#expired(session));
    } catch (error) {
      await session.close();
      throw error;
    } finally {
      signal?.removeEventListener('abort', abandon);
    }
    if (this.#closed) await session.close();
    else this.#session = session;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) {
      clearTimeout(this.#retry.timer);
      this.#retry.wake();
    }
    await this.#reopening;
    await this.#session?.close();
  }

  #expired(session: ZkSession): void {
    this.#session = undefined;
    void session.close();
    if (this.#closed) return;
    this.events.expired?.();
    this.#reopening = this.#reopen();
  }

  /** Opens sessions until one follows the list again, or the watch is closed. */
  async #reopen(): Promise<void> {
    for (let waitMs = FIRST_RETRY_MS; !this.#closed; waitMs = Math.min(2 * waitMs, LAST_RETRY_MS)) {
      try {
        await this.open();
        if (!this.#closed) this.events.reopened?.();
        return;
      } catch (error) {
        if (this.#closed) return;
        this.events.reopenFailed?.(error, waitMs);
      }
      await new Promise<void>((wake) => {
        this.#retry = { timer: setTimeout(wake, waitMs), wake };
      });
      this.#retry = undefined;
    }
  }
}
