// The state of the query endpoint on one node: the profiles, keys and cluster versions it
// serves from memory (kept in step through the change feed), the live nodes of each cluster
// in use (a ZooKeeper watch per SolrCloud), kept-alive connections to Solr, the search-log
// batch and the metrics. Built in buildApp, closed with the app.

import { type LiveNodes, type LiveNodesEvents, openClusterNodes } from '../clusters/service.js';
import type { AppContext } from '../http/area.js';
import { SecretBox } from '../security/secret-box.js';
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
  next: number;
}

export class QueryParts {
  readonly metrics: QueryMetrics;
  readonly solr = new SolrClient();
  readonly logs: SearchLogBatch;
  readonly served: ServedProfiles;
  readonly feed: ChangeFeed;
  /** Aborted when a shutdown's grace runs out: queries still waiting on Solr are answered 503. */
  readonly stopping: AbortSignal;
  readonly #ctx: AppContext;
  readonly #box: SecretBox;
  readonly #clusters = new Map<string, Watched>();
  #closed = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
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
   */
  async nodesOf(clusterId: string): Promise<{ nodes: LiveNodes; start: number }> {
    if (this.#closed) throw new Error('the query endpoint is stopping');
    const updatedAt = this.served.clusterVersion(clusterId);
    let watched = this.#clusters.get(clusterId);
    if (watched === undefined || watched.updatedAt !== updatedAt) {
      if (watched) void this.#release(watched);
      const opening = openClusterNodes(
        this.#ctx.store.db,
        this.#box,
        clusterId,
        this.#sessionEvents(clusterId),
      ).then(({ nodes }) => nodes);
      watched = { updatedAt, nodes: opening, next: 0 };
      this.#clusters.set(clusterId, watched);
      const mine = watched;
      // A failed opening is forgotten, so the next query tries again.
      opening.catch(() => {
        if (this.#clusters.get(clusterId) === mine) this.#clusters.delete(clusterId);
      });
    }
    const nodes = await watched.nodes;
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
    try {
      await (await watched.nodes).close();
    } catch {
      // It never opened: nothing to close.
    }
  }
}
