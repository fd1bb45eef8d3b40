import { Gauge } from 'prom-client';
import type { AppContext } from '../http/area.js';
import { ChangeFeed } from '../storage/change-feed.js';
import { EmbedTokens } from './embed-tokens.js';
import { type RegistryOptions, TypeaheadRegistry } from './registry.js';
import { SearchLogWriter } from './search-log-writer.js';
import { TopSearchedSchedule } from './top-searched-schedule.js';

export interface TypeaheadPartsOptions extends RegistryOptions {
  /** Cron pattern of the top-searched job (default: every hour on the hour). */
  schedule?: string;
}

/**
 * The state of typeahead on one node, built once per app: the registry of instances and
 * their indexes, the embed token keys, how the registry follows changes, the hourly
 * job, and the writer that commits concurrent search logs together. Started when the app is ready, stopped when it closes.
 */
export class TypeaheadParts {
  readonly registry: TypeaheadRegistry;
  readonly tokens: EmbedTokens;
  readonly feed: ChangeFeed;
  readonly topSearched: TopSearchedSchedule;
  /** Writes the search logs of concurrent requests together. */
  readonly searchLogs: SearchLogWriter;
  readonly #log: AppContext['log'];
  #stopped = false;
  #warming: Promise<void> | undefined;

  constructor(ctx: AppContext, options: TypeaheadPartsOptions = {}) {
    const idle = ctx.tuning.typeaheadIdleMs;
    this.registry = new TypeaheadRegistry(ctx.store.db, {
      now: ctx.now,
      ...(idle === undefined ? {} : { idleMs: idle }),
      ...options,
    });
    this.tokens = new EmbedTokens(ctx.secretKey);
    this.feed = new ChangeFeed(
      this.registry,
      ctx.store.notifications,
      ctx.log,
      'searchdeck_typeahead',
      ctx.tuning.changePollMs,
    );
    this.topSearched = new TopSearchedSchedule({
      store: ctx.store,
      feed: this.feed,
      metrics: ctx.metrics,
      jobs: ctx.jobs,
      log: ctx.log,
      now: ctx.now,
      ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
    });
    this.searchLogs = new SearchLogWriter(ctx.store.db);
    this.#log = ctx.log;
    const registry = this.registry;
    new Gauge({
      name: 'searchdeck_typeahead_indexes_resident',
      help: 'Typeahead instances whose suggestion index is in memory on this node',
      registers: [ctx.metrics],
      collect() {
        this.set(registry.stats.resident);
      },
    });
    new Gauge({
      name: 'searchdeck_typeahead_suggestions_resident',
      help: 'Suggestions held in memory by the resident indexes of this node',
      registers: [ctx.metrics],
      collect() {
        this.set(registry.stats.suggestions);
      },
    });
  }

  async start(): Promise<void> {
    await this.registry.sync();
    this.feed.start();
    this.topSearched.start();
    this.#warming = this.registry
      .warmAll(() => this.#stopped)
      .catch((error) => {
        this.#log.warn({ err: error }, 'typeahead: warming the indexes failed');
      });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.topSearched.stop();
    await this.feed.stop();
    await this.#warming;
  }
}
