import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { CoalescingSync } from '../storage/coalescing-sync.js';
import type { Database } from '../storage/schema.js';
import {
  type InstanceRow,
  selectInstance,
  selectTerms,
  selectTopTerms,
  selectVersions,
} from './repository.js';
import { buildSuggestionIndex, type SuggestionIndex } from './suggestion-index.js';

/** What a node keeps of an instance to answer its requests without the database. */
export interface ServedInstance {
  readonly id: string;
  version: number;
  tokenHash: string;
  previousTokenHash: string | null;
  previousTokenExpiresMs: number;
  /** The `Cache-Control` value, made once. */
  cacheControl: string;
  anyOrigin: boolean;
  origins: ReadonlySet<string>;
  /** Undefined when not built yet or evicted for being idle. */
  index: SuggestionIndex | undefined;
  indexVersion: number;
  /** The sync period of the last request (requests read no clock; syncs turn this into a time). */
  lastUsedTick: number;
  /** When a sync first saw the last request, in ms. */
  lastUsedMs: number;
  building: Promise<SuggestionIndex> | undefined;
}

export interface RegistryOptions {
  /** How long an index may go unused before it is dropped (ms, default an hour). */
  idleMs?: number;
  now?: () => Date;
}

/**
 * This node's copy of every instance: settings and token hashes of all of them, and the
 * suggestion indexes of those in use. It follows the database through `sync()`, which
 * compares versions, so a change made through any node reaches this one.
 */
export class TypeaheadRegistry {
  readonly #db: Kysely<Database>;
  readonly #instances = new Map<string, ServedInstance>();
  readonly #byToken = new Map<string, ServedInstance>();
  readonly #idleMs: number;
  readonly #now: () => Date;
  #tick = 0;
  readonly #syncing = new CoalescingSync(() => this.#syncOnce());
  #anyOriginSomewhere = false;
  #originsSomewhere = new Set<string>();

  constructor(db: Kysely<Database>, options: RegistryOptions = {}) {
    this.#db = db;
    this.#idleMs = options.idleMs ?? 3_600_000;
    this.#now = options.now ?? (() => new Date());
  }

  /** The instance a token hash belongs to; a previous token only until its grace period ends. */
  byTokenHash(hash: string): ServedInstance | undefined {
    const instance = this.#byToken.get(hash);
    if (instance === undefined || hash === instance.tokenHash) return instance;
    return this.#now().getTime() < instance.previousTokenExpiresMs ? instance : undefined;
  }

  has(id: string): boolean {
    return this.#instances.has(id);
  }

  get(id: string): ServedInstance | undefined {
    return this.#instances.get(id);
  }

  /** Whether some instance accepts requests from this origin (for preflights, which carry no token). */
  originAllowedSomewhere(origin: string): boolean {
    return this.#anyOriginSomewhere || this.#originsSomewhere.has(origin);
  }

  /** The index of an instance, built from the database if it is not resident. */
  index(instance: ServedInstance): SuggestionIndex | Promise<SuggestionIndex> {
    instance.lastUsedTick = this.#tick;
    return instance.index ?? this.#build(instance);
  }

  get stats(): { instances: number; resident: number; suggestions: number } {
    let resident = 0;
    let suggestions = 0;
    for (const instance of this.#instances.values()) {
      if (instance.index === undefined) continue;
      resident++;
      suggestions += instance.index.size;
    }
    return { instances: this.#instances.size, resident, suggestions };
  }

  /** Brings this node up to date with the database; concurrent calls share one pass (plus one after). */
  sync(): Promise<void> {
    return this.#syncing.run();
  }

  /** Builds every index that is not resident, one at a time, yielding between them. */
  async warmAll(stopped: () => boolean): Promise<void> {
    for (const instance of [...this.#instances.values()]) {
      if (stopped()) return;
      if (instance.index === undefined && this.#instances.has(instance.id)) await this.index(instance);
      await yieldToEventLoop();
    }
  }

  async #syncOnce(): Promise<void> {
    // Eviction is accurate to one sync period (about a second), and the request path
    // only copies a counter instead of reading the clock.
    const nowMs = this.#now().getTime();
    for (const instance of this.#instances.values()) {
      if (instance.lastUsedTick === this.#tick) instance.lastUsedMs = nowMs;
    }
    this.#tick++;
    const versions = await selectVersions(this.#db);
    const present = new Set<string>();
    let changed = false;
    for (const { id, version } of versions) {
      present.add(id);
      const known = this.#instances.get(id);
      if (known?.version === version) continue;
      await this.#reload(id);
      changed = true;
    }
    for (const id of this.#instances.keys()) {
      if (!present.has(id)) {
        this.#remove(id);
        changed = true;
      }
    }
    if (changed) this.#reindexOrigins();
    for (const instance of this.#instances.values()) {
      const idle = instance.lastUsedTick !== this.#tick && nowMs - instance.lastUsedMs > this.#idleMs;
      if (instance.index !== undefined && idle) {
        instance.index = undefined;
        instance.indexVersion = 0;
      }
    }
  }

  async #reload(id: string): Promise<void> {
    const row = await selectInstance(this.#db, id);
    if (!row) {
      this.#remove(id);
      return;
    }
    const instance = this.#instances.get(id) ?? this.#fresh(row);
    this.#forgetTokens(instance);
    applySettings(instance, row);
    this.#instances.set(id, instance);
    // Tokens change at once, before the index is rebuilt, so no request sees neither token.
    this.#byToken.set(instance.tokenHash, instance);
    if (instance.previousTokenHash !== null) this.#byToken.set(instance.previousTokenHash, instance);
    if (instance.index !== undefined) await this.#build(instance, true);
  }

  #fresh(row: InstanceRow): ServedInstance {
    return {
      id: row.id,
      version: 0,
      tokenHash: row.token_hash,
      previousTokenHash: null,
      previousTokenExpiresMs: 0,
      cacheControl: '',
      anyOrigin: true,
      origins: new Set(),
      index: undefined,
      indexVersion: 0,
      lastUsedTick: this.#tick,
      lastUsedMs: this.#now().getTime(),
      building: undefined,
    };
  }

  #remove(id: string): void {
    const instance = this.#instances.get(id);
    if (instance) this.#forgetTokens(instance);
    this.#instances.delete(id);
  }

  #forgetTokens(instance: ServedInstance): void {
    if (this.#byToken.get(instance.tokenHash) === instance) this.#byToken.delete(instance.tokenHash);
    const previous = instance.previousTokenHash;
    if (previous !== null && this.#byToken.get(previous) === instance) this.#byToken.delete(previous);
  }

  #reindexOrigins(): void {
    this.#anyOriginSomewhere = false;
    this.#originsSomewhere = new Set();
    for (const instance of this.#instances.values()) {
      if (instance.anyOrigin) this.#anyOriginSomewhere = true;
      for (const origin of instance.origins) this.#originsSomewhere.add(origin);
    }
  }

  /**
   * Builds an instance's index. Callers that need the index share a build in flight; a
   * reload (`fresh`) queues a new build after it, since that one may have read older terms.
   */
  #build(instance: ServedInstance, fresh = false): Promise<SuggestionIndex> {
    if (instance.building !== undefined && !fresh) return instance.building;
    const previous = instance.building ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.#load(instance));
    instance.building = run;
    run.then(
      () => this.#settled(instance, run),
      () => this.#settled(instance, run),
    );
    return run;
  }

  #settled(instance: ServedInstance, run: Promise<SuggestionIndex>): void {
    if (instance.building === run) instance.building = undefined;
  }

  async #load(instance: ServedInstance): Promise<SuggestionIndex> {
    // The version is read before the terms, so the terms are at least that new.
    const row = await selectInstance(this.#db, instance.id);
    const [terms, top] = await Promise.all([
      selectTerms(this.#db, instance.id),
      selectTopTerms(this.#db, instance.id),
    ]);
    const index = buildSuggestionIndex({
      included: terms.filter((t) => t.list === 'included').map((t) => t.term),
      excluded: terms.filter((t) => t.list === 'excluded').map((t) => t.key),
      topSearched: top.map((t) => t.term),
    });
    const version = row?.version ?? 0;
    if (version >= instance.indexVersion) {
      instance.index = index;
      instance.indexVersion = version;
    }
    return index;
  }
}

function applySettings(instance: ServedInstance, row: InstanceRow): void {
  const origins = JSON.parse(row.allowed_origins) as string[];
  instance.version = row.version;
  instance.tokenHash = row.token_hash;
  instance.previousTokenHash = row.previous_token_hash;
  instance.previousTokenExpiresMs = row.previous_token_expires_at
    ? Date.parse(row.previous_token_expires_at)
    : 0;
  instance.cacheControl = `public, max-age=${row.cache_max_age_seconds}`;
  instance.anyOrigin = origins.includes('*');
  instance.origins = new Set(origins);
}
