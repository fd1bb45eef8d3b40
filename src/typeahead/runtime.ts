import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { AppContext } from '../http/area.js';
import { releaseLease, tryAcquireLease } from '../storage/lease.js';
import { type RegistryOptions, TypeaheadRegistry } from './registry.js';
import { CHANGE_CHANNEL, selectVersions } from './repository.js';
import type { TermCountsType } from './schemas.js';
import { getTerms } from './service.js';
import { EmbedTokens } from './tokens.js';
import { refreshTopSearched } from './top-searched-job.js';

// The version check that catches every change, also from nodes that cannot NOTIFY
// (SQLite shared by several processes) or whose notification was lost in a reconnect.
const POLL_MS = 1000;
const RECONNECT_MS = 1000;
const JOB_LEASE = 'typeahead-top-searched';
// Held, not released, after a successful run: the other nodes firing in the same hour
// find it taken; it lapses before the next hour's run.
const JOB_LEASE_MS = 50 * 60_000;

export interface RuntimeOptions extends RegistryOptions {
  /** Cron pattern of the top-searched job (default: every hour on the hour). */
  schedule?: string;
}

/**
 * The moving parts of typeahead on one node: the registry of indexes, how it follows
 * changes (poll, and LISTEN on PostgreSQL), and the hourly job. Started when the app is
 * ready, stopped when it closes.
 */
export class TypeaheadRuntime {
  readonly registry: TypeaheadRegistry;
  readonly tokens: EmbedTokens;
  readonly nodeId = randomUUID();
  readonly #ctx: AppContext;
  readonly #schedule: string;
  readonly #jobRuns: Counter<'trigger'>;
  #stopped = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #listener: pg.Client | undefined;
  #cron: Cron | undefined;
  #warming: Promise<void> | undefined;

  constructor(ctx: AppContext, options: RuntimeOptions = {}) {
    this.#ctx = ctx;
    const idle = ctx.tuning.typeaheadIdleMs;
    this.registry = new TypeaheadRegistry(ctx.store.db, {
      now: ctx.now,
      ...(idle === undefined ? {} : { idleMs: idle }),
      ...options,
    });
    this.tokens = new EmbedTokens(ctx.secretKey);
    this.#schedule = options.schedule ?? '0 * * * *';
    this.#jobRuns = new Counter({
      name: 'searchdeck_typeahead_job_runs_total',
      help: 'Runs of the top-searched job, by trigger (schedule or request)',
      labelNames: ['trigger'] as const,
      registers: [ctx.metrics],
    });
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
    this.#schedulePoll();
    if (this.#ctx.store.engine === 'postgres' && this.#ctx.config.databaseUrl) this.#listen();
    this.#cron = new Cron(this.#schedule, { protect: true, unref: true }, async () => {
      await this.runScheduledJob().catch((error) =>
        this.#ctx.log.error({ err: error }, 'top-searched job failed'),
      );
    });
    this.#warming = this.registry
      .warmAll(() => this.#stopped)
      .catch((error) => {
        this.#ctx.log.warn({ err: error }, 'typeahead: warming the indexes failed');
      });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cron?.stop();
    clearTimeout(this.#pollTimer);
    await this.#listener?.end().catch(() => {});
    await this.#warming;
  }

  /** After a change made through this node: serve it here at once. */
  async changed(): Promise<void> {
    await this.registry.sync();
  }

  /** Recomputes one instance's top-searched set now (no lease: it is idempotent). */
  async refresh(id: string): Promise<TermCountsType> {
    await refreshTopSearched(this.#ctx.store.db, id, this.#ctx.now());
    this.#jobRuns.inc({ trigger: 'request' });
    await this.changed();
    return (await getTerms(this.#ctx.store.db, id)).counts;
  }

  /** The hourly run over every instance, on the one node that takes the lease. False when another has it. */
  async runScheduledJob(): Promise<boolean> {
    const db = this.#ctx.store.db;
    const now = this.#ctx.now();
    if (!(await tryAcquireLease(db, JOB_LEASE, this.nodeId, now, new Date(now.getTime() + JOB_LEASE_MS)))) {
      return false;
    }
    this.#jobRuns.inc({ trigger: 'schedule' });
    try {
      for (const { id } of await selectVersions(db)) {
        if (this.#stopped) break;
        await refreshTopSearched(db, id, now).catch((error) =>
          this.#ctx.log.error({ err: error, instance: id }, 'top-searched job failed for an instance'),
        );
      }
    } catch (error) {
      await releaseLease(db, JOB_LEASE, this.nodeId);
      throw error;
    }
    await this.changed();
    return true;
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#pollTimer = setTimeout(() => {
      this.registry
        .sync()
        .catch((error) => this.#ctx.log.warn({ err: error }, 'typeahead: sync with the database failed'))
        .finally(() => this.#schedulePoll());
    }, POLL_MS);
    this.#pollTimer.unref();
  }

  #listen(): void {
    if (this.#stopped) return;
    const client = new pg.Client({ connectionString: this.#ctx.config.databaseUrl });
    this.#listener = client;
    let retried = false;
    const retry = () => {
      if (retried) return;
      retried = true;
      client.end().catch(() => {});
      if (!this.#stopped) setTimeout(() => this.#listen(), RECONNECT_MS).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', () => {
      this.registry.sync().catch(() => {});
    });
    client
      .connect()
      .then(() => client.query(`listen ${CHANGE_CHANNEL}`))
      .catch(retry);
  }
}
