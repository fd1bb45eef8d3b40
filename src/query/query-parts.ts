// The state of the query endpoint on one node: the profiles, keys and cluster versions it
// serves from memory (kept in step through the change feed), the live nodes of each cluster
// in use (a ZooKeeper watch per SolrCloud), kept-alive connections to Solr, the search-log
// batch and the metrics. Built in buildApp, closed with the app.

import { type LiveNodes, type LiveNodesEvents, openClusterNodes } from '../clusters/service.js';
import type { AppContext } from '../http/area.js';
import { SecretBox } from '../security/secret-box.js';
import type { SignalsParts } from '../signals/signals-parts.js';
import { ChangeFeed } from '../storage/change-feed.js';
import { QueryMetrics } from './query-metrics.js';
import { SearchLogBatch } from './search-log-batch.js';
import { ServedProfiles } from './served-profiles.js';
import { SolrClient } from './solr-client.js';

/** The channel on which nodes sharing a PostgreSQL database hear of each other's profile and key changes. */
const CHANNEL = 'searchdeck_query';

interface Watched {
  updatedAt: string | undefined;
  nodes: Promise<LiveNodes>;
  /** The nodes once opened: a query then waits for no timer. */
  opened: LiveNodes | undefined;
  /** ZooKeeper's connect string, once a session is being opened to it (SolrCloud only). */
  zooKeeper: string | undefined;
  /** Gives up an opening still under way: when the app closes or the definition changed. */
  abandon: AbortController;
  next: number;
}

/** A cluster's live nodes were not known within the time a query may wait for them. */
export class LiveNodesTimeout extends Error {
  constructor(
    readonly clusterId: string,
    /** Where the nodes were being looked up; undefined while the definition was still being read. */
    readonly zooKeeper: string | undefined,
    readonly waitedMs: number,
  ) {
    super(
      zooKeeper === undefined
        ? `the definition of search cluster ${clusterId} could not be read within ${waitedMs} ms`
        : `ZooKeeper at ${zooKeeper} could not be reached within ${waitedMs} ms`,
    );
    this.name = 'LiveNodesTimeout';
  }
}

export class QueryParts {
  readonly metrics: QueryMetrics;
  readonly solr = new SolrClient();
  readonly logs: SearchLogBatch;
  readonly served: ServedProfiles;
  readonly feed: ChangeFeed;
  /** Aborted when a shutdown's grace runs out: queries still waiting on Solr are answered 503. */
  readonly stopping: AbortSignal;
  /** Where each answered query's response signal goes, and the shopper-hash key. */
  readonly signals: SignalsParts;
  readonly now: () => Date;
  readonly #ctx: AppContext;
  readonly #box: SecretBox;
  readonly #clusters = new Map<string, Watched>();
  #closed = false;

  constructor(ctx: AppContext, signals: SignalsParts) {
    this.#ctx = ctx;
    this.signals = signals;
    this.now = ctx.now;
    this.stopping = ctx.stopping;
    this.#box = new SecretBox(ctx.secretKey);
    this.metrics = new QueryMetrics(ctx.metrics);
    this.logs = new SearchLogBatch(ctx.store.db, ctx.now, ctx.log, ctx.tuning.searchLogFlushMs);
    this.served = new ServedProfiles(ctx.store.db);
    this.feed = new ChangeFeed(
      this.served,
      ctx.store.notifications,
      ctx.log,
      CHANNEL,
      ctx.tuning.changePollMs,
    );
  }

  async start(): Promise<void> {
    await this.served.sync();
    this.feed.start();
    this.logs.start();
  }

  /**
   * A profile or key of `app` changed through this node (committed): tells the other nodes
   * and serves the change here before returning. A failed read is logged; the poll retries.
   */
  async profilesChanged(app: string): Promise<void> {
    const { db } = this.#ctx.store;
    try {
      await this.feed.announce(db, app);
      await this.feed.changed();
    } catch (error) {
      this.#ctx.log.warn({ err: error, app }, 'query: reading the profiles and keys failed');
    }
  }

  /**
   * The live nodes of a cluster, opened on first use and reopened when its definition changed
   * (an expired ZooKeeper session is reopened by the watch itself, serving the last list meanwhile);
   * and the index of the node to start at (round-robin over the cluster's queries).
   *
   * All queries share one opening. A query waits for it at most `withinMs` (then LiveNodesTimeout),
   * while the opening goes on in the background, up to the cluster's zkConnectTimeout, for the
   * queries after it; a failed opening is forgotten, so the next query starts another.
   */
  async nodesOf(clusterId: string, withinMs?: number): Promise<{ nodes: LiveNodes; start: number }> {
    if (this.#closed) throw new Error('the query endpoint is stopping');
    const updatedAt = this.served.clusterVersion(clusterId);
    let watched = this.#clusters.get(clusterId);
    if (watched === undefined || watched.updatedAt !== updatedAt) {
      if (watched) void this.#release(watched);
      watched = this.#open(clusterId, updatedAt);
    }
    const nodes = watched.opened ?? (await this.#within(watched, clusterId, withinMs));
    return { nodes, start: watched.next++ };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.feed.stop();
    await this.served.settled();
    await this.logs.stop();
    const all = [...this.#clusters.values()];
    this.#clusters.clear();
    await Promise.all(all.map((watched) => this.#release(watched)));
    this.solr.close();
  }

  #open(clusterId: string, updatedAt: string | undefined): Watched {
    const abandon = new AbortController();
    const events: LiveNodesEvents = {
      ...this.#sessionEvents(clusterId),
      connecting: (connectString) => {
        watched.zooKeeper = connectString;
      },
    };
    const { db } = this.#ctx.store;
    const opening = openClusterNodes(db, this.#box, clusterId, events, abandon.signal);
    const watched: Watched = {
      updatedAt,
      nodes: opening.then(({ nodes }) => {
        watched.opened = nodes;
        return nodes;
      }),
      opened: undefined,
      zooKeeper: undefined,
      abandon,
      next: 0,
    };
    // A failed opening is forgotten, so the next query tries again.
    watched.nodes.catch(() => {
      if (this.#clusters.get(clusterId) === watched) this.#clusters.delete(clusterId);
    });
    this.#clusters.set(clusterId, watched);
    return watched;
  }

  /** The opening's nodes, or LiveNodesTimeout once `withinMs` have passed; no timer is left behind. */
  async #within(watched: Watched, clusterId: string, withinMs: number | undefined): Promise<LiveNodes> {
    if (withinMs === undefined) return watched.nodes;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new LiveNodesTimeout(clusterId, watched.zooKeeper, withinMs)),
        withinMs,
      );
    });
    try {
      return await Promise.race([watched.nodes, expiry]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The ZooKeeper session of a cluster's live-nodes watch, as the log tells it. */
  #sessionEvents(clusterId: string): LiveNodesEvents {
    const log = this.#ctx.log;
    return {
      expired: () =>
        log.warn(
          { cluster: clusterId },
          'query: ZooKeeper expired the live-nodes session; opening a new one',
        ),
      reopenFailed: (error, retryInMs) =>
        log.warn(
          { err: error, cluster: clusterId, retryInMs },
          'query: opening a new ZooKeeper session failed',
        ),
      reopened: () => log.info({ cluster: clusterId }, 'query: the live nodes are followed again'),
    };
  }

  async #release(watched: Watched): Promise<void> {
    watched.abandon.abort();
    try {
      await (await watched.nodes).close();
    } catch {
      // It never opened: nothing to close.
    }
  }
}
