// The state of evaluation on one node: a compiled index per studio, kept in step with the
// database's live rules and rewrites (and the studio's API clients) through the shared
// change feed.
import { Gauge } from 'prom-client';
import type { AppContext } from '../http/area.js';
import { ChangeFeed } from '../storage/change-feed.js';
import { CoalescingSync } from '../storage/coalescing-sync.js';
import { isMissingParent } from '../storage/constraint-errors.js';
import type { ClientsChange } from '../studios/service.js';
import { type CompiledStudio, EMPTY_STUDIO } from './compiled-studio.js';
import { EvaluationMetrics } from './evaluation-metrics.js';
import { bumpLiveVersion, type LiveVersion, selectLiveVersions } from './repository.js';
import type { RewriteSource } from './rewrite-source.js';
import { type LiveChange, ServedStudio } from './served-studio.js';

/** The channel on which nodes sharing a PostgreSQL database hear of each other's live changes. */
const CHANNEL = 'searchdeck_evaluation';
const CLIENTS_CHANGED: LiveChange = { rules: [], rewrites: false, clients: true };

export interface RebuildStats {
  /** Index updates since the node started: patches of the changed rules and fresh compilations. */
  builds: number;
  /** Of those, the studios compiled afresh (at start, for a new studio, or after a large change). */
  fullBuilds: number;
  /** How long the last update took (ms): reading what changed and compiling it. */
  lastBuildMs: number;
}

export class EvaluationParts {
  readonly feed: ChangeFeed;
  readonly metrics: EvaluationMetrics;
  readonly rebuilds: RebuildStats = { builds: 0, fullBuilds: 0, lastBuildMs: 0 };
  readonly #ctx: AppContext;
  readonly #rewrites: RewriteSource;
  readonly #served = new Map<string, ServedStudio>();
  /** The changes this node made, by studio and the live version each one moved it to. */
  readonly #pending = new Map<string, Map<number, LiveChange>>();
  readonly #syncing = new CoalescingSync(() => this.#syncOnce());

  constructor(ctx: AppContext, rewrites: RewriteSource) {
    this.#ctx = ctx;
    this.#rewrites = rewrites;
    this.feed = new ChangeFeed(this, ctx.store.notifications, ctx.log, CHANNEL, ctx.tuning.changePollMs);
    this.metrics = new EvaluationMetrics(ctx.metrics);
    const served = this.#served;
    new Gauge({
      name: 'searchdeck_evaluation_rules_resident',
      help: 'Live rules held in the compiled evaluation indexes of this node',
      registers: [ctx.metrics],
      collect() {
        let rules = 0;
        for (const { studio } of served.values()) rules += studio.ruleCount;
        this.set(rules);
      },
    });
  }

  /** The compiled live rules and rewrites of a studio, from memory only. */
  studio(studioId: string): CompiledStudio {
    return this.#served.get(studioId)?.studio ?? EMPTY_STUDIO;
  }

  /**
   * The name of the client a token was issued to, when this node's copy of the studio holds
   * it in the incarnation the token names (none: a token from before incarnations); else
   * undefined. The copy follows the database as the compiled index does: at once for changes
   * made through this node, within the feed's delay for the others'.
   */
  heldClient(studioId: string, clientId: string, incarnation: string | undefined): string | undefined {
    const served = this.#served.get(studioId);
    if (served === undefined) return undefined;
    if (incarnation !== undefined && incarnation !== served.incarnation) return undefined;
    return served.clientName(clientId);
  }

  /** The rewrites a preview of staging content uses. */
  get rewrites(): RewriteSource {
    return this.#rewrites;
  }

  /**
   * A studio's live rules or rewrites changed (a publish, unpublish or removal, committed):
   * moves its version on, tells the other nodes, and updates this node's index. `change` says
   * what changed when the caller knows (then only that is read again). Never throws.
   */
  async liveChanged(studioId: string, change?: LiveChange): Promise<void> {
    let version: number;
    try {
      version = await bumpLiveVersion(this.#ctx.store.db, studioId);
    } catch (error) {
      // A studio deleted meanwhile has no index to rebuild.
      if (!isMissingParent(error)) this.#ctx.log.warn({ err: error, studioId }, 'evaluation: rebuild failed');
      return;
    }
    await this.#moved(studioId, { version, change });
  }

  /**
   * A change of the studio's API clients. `inside` moves the studio's live version on in the
   * transaction that makes the change, so every node's poll sees it even if what follows the
   * commit fails; `committed` (after the commit, before the answer) updates this node's copy
   * and tells the others. Neither is needed for a change that did not commit.
   */
  clientsChange(studioId: string): ClientsChange {
    let version: number | undefined;
    return {
      inside: async (trx) => {
        version = await bumpLiveVersion(trx, studioId);
      },
      committed: async () => {
        if (version !== undefined) await this.#moved(studioId, { version, change: CLIENTS_CHANGED });
      },
    };
  }

  /**
   * A studio was deleted (committed): its version row went with it, so this node and the
   * others drop its copy on their next sync, which this starts here at once. Never throws.
   */
  studioRemoved(studioId: string): Promise<void> {
    return this.#moved(studioId);
  }

  /**
   * After a committed change of the studio's version row (moved to `noted.version`, which
   * `noted.change` made when this node knows what it touched; or removed): this node
   * follows, the others are told. Never throws: whatever moved, the poll brings every node to it.
   */
  async #moved(studioId: string, noted?: { version: number; change: LiveChange | undefined }): Promise<void> {
    const { db } = this.#ctx.store;
    try {
      if (noted?.change !== undefined) {
        const pending = this.#pending.get(studioId) ?? new Map<number, LiveChange>();
        pending.set(noted.version, noted.change);
        this.#pending.set(studioId, pending);
      }
      await this.feed.announce(db, studioId);
      await this.sync();
    } catch (error) {
      this.#ctx.log.warn({ err: error, studioId }, 'evaluation: rebuild failed');
    }
  }

  /** Rebuilds the index of every studio whose live version moved; one sync at a time. */
  sync(): Promise<void> {
    return this.#syncing.run();
  }

  async start(): Promise<void> {
    await this.sync();
    this.feed.start();
  }

  async stop(): Promise<void> {
    await this.feed.stop();
    await this.#syncing.settled();
  }

  async #syncOnce(): Promise<void> {
    const versions = await selectLiveVersions(this.#ctx.store.db);
    const present = new Set<string>();
    for (const live of versions) {
      const { studioId, version, incarnation } = live;
      present.add(studioId);
      const served = this.#served.get(studioId);
      // A studio created again under its id starts afresh: nothing of the old one carries over.
      const same = served?.incarnation === incarnation ? served : undefined;
      // What this node noted of changes to the old one says nothing of the new one.
      if (served !== undefined && same === undefined) this.#pending.delete(studioId);
      if (same?.version !== version) await this.#update(live, same);
      this.#forgetPending(studioId, version);
    }
    for (const studioId of this.#served.keys()) {
      if (present.has(studioId)) continue;
      this.#served.delete(studioId);
      this.#pending.delete(studioId);
    }
  }

  /** Brings a studio's index to `version`, read after it, so the content is at least that new. */
  async #update(
    { studioId, version, incarnation }: LiveVersion,
    served: ServedStudio | undefined,
  ): Promise<void> {
    const started = performance.now();
    let full = true;
    if (served === undefined) {
      const source = { db: this.#ctx.store.db, studioId, incarnation, rewrites: this.#rewrites };
      this.#served.set(studioId, await ServedStudio.build(source, version));
    } else {
      const known = this.#knownChange(studioId, served.version, version);
      full = known !== undefined ? await served.apply(known) : await served.catchUp();
      served.version = version;
    }
    this.rebuilds.builds++;
    if (full) this.rebuilds.fullBuilds++;
    this.rebuilds.lastBuildMs = performance.now() - started;
  }

  /** What moved the studio from `from` to `to`, when this node made every one of those changes. */
  #knownChange(studioId: string, from: number, to: number): LiveChange | undefined {
    const pending = this.#pending.get(studioId);
    if (pending === undefined) return undefined;
    const rules = new Set<string>();
    let rewrites = false;
    let clients = false;
    for (let version = from + 1; version <= to; version++) {
      const change = pending.get(version);
      if (change === undefined) return undefined;
      for (const id of change.rules) rules.add(id);
      rewrites ||= change.rewrites;
      clients ||= change.clients === true;
    }
    return { rules: [...rules], rewrites, clients };
  }

  #forgetPending(studioId: string, upTo: number): void {
    const pending = this.#pending.get(studioId);
    if (pending === undefined) return;
    for (const version of pending.keys()) if (version <= upTo) pending.delete(version);
    if (pending.size === 0) this.#pending.delete(studioId);
  }
}
