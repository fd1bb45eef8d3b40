// One studio's compiled index on this node, and how it follows a change of the studio's live
// rules and rewrites: the rules that changed are put in or taken out in place, the rewrites
// are compiled again only when they changed, and only a large change compiles it all afresh.
// Beside the index it holds the studio's API clients (ids and names, read through the studios
// service), so that a token is checked against the same copy of the studio its evaluation is
// answered from.
import type { Kysely } from 'kysely';
import {
  liveRuleStamps,
  liveRulesByIds,
  liveRulesOf,
  type StampedRule,
} from '../rules/evaluated-contents.js';
import type { Database } from '../storage/schema.js';
import { TimeSlice } from '../storage/time-slice.js';
import { clientNamesOf } from '../studios/service.js';
import { CompiledStudio, compileStudio } from './compiled-studio.js';
import type { RewriteSource } from './rewrite-source.js';
import { CompiledRewrites } from './rewriting.js';

/** What a live change touched, as the node that made it knows. */
export interface LiveChange {
  /** The rules whose live content, deletion mark or existence may have changed. */
  rules: readonly string[];
  rewrites: boolean;
  /** Whether a client of the studio was created or deleted. */
  clients?: boolean;
}

/** Where a served studio reads its live content. */
export interface StudioSource {
  db: Kysely<Database>;
  studioId: string;
  /** The studio as created this time (see `studio.incarnation`); null for one from before incarnations. */
  incarnation: string | null;
  rewrites: RewriteSource;
}

// Above this many changed rules the studio is compiled afresh, in slices, beside the index
// in use; below it the changed rules are patched in at once (a few µs each).
const PATCH_LIMIT = 1_000;

export class ServedStudio {
  /** The studio's live version this index has caught up with. */
  version: number;
  #studio: CompiledStudio;
  /** The stamp of every rule in the index (see `liveRuleStamps`). */
  #stamps: Map<string, string>;
  /** The live rewrites the index was compiled with, as JSON, to tell whether they changed. */
  #rewritesText: string;
  /** The studio's API clients when the index was last brought up to date. */
  #clients: ReadonlyMap<string, string>;
  readonly #source: StudioSource;

  private constructor(
    source: StudioSource,
    version: number,
    built: Built,
    clients: ReadonlyMap<string, string>,
  ) {
    this.#source = source;
    this.version = version;
    this.#studio = built.studio;
    this.#stamps = built.stamps;
    this.#rewritesText = built.rewritesText;
    this.#clients = clients;
  }

  /** Reads and compiles the studio's whole live content (off the request path, in slices). */
  static async build(source: StudioSource, version: number): Promise<ServedStudio> {
    const [built, clients] = await Promise.all([buildAll(source), clientsOf(source)]);
    return new ServedStudio(source, version, built, clients);
  }

  get studio(): CompiledStudio {
    return this.#studio;
  }

  get incarnation(): string | null {
    return this.#source.incarnation;
  }

  /** Whether the client existed in the studio as of this copy. */
  clientName(clientId: string): string | undefined {
    return this.#clients.get(clientId);
  }

  /**
   * Follows a change this node made: reads the rules it names (and the rewrites, if they
   * changed). Answers whether it compiled the studio afresh.
   */
  async apply(change: LiveChange): Promise<boolean> {
    if (change.rules.length > PATCH_LIMIT) return this.#rebuild();
    const { db, studioId } = this.#source;
    const [rules, rewrites, clients] = await Promise.all([
      liveRulesByIds(db, studioId, change.rules),
      change.rewrites ? this.#changedRewrites() : undefined,
      change.clients ? clientsOf(this.#source) : undefined,
    ]);
    this.#patch(change.rules, rules, rewrites, clients);
    return false;
  }

  /**
   * Follows a change of unknown extent (made on another node, or by an import): finds the
   * rules whose stamp moved and patches those, or compiles afresh when they are many.
   */
  async catchUp(): Promise<boolean> {
    const { db, studioId } = this.#source;
    const slice = new TimeSlice();
    // The clients are few: read again whatever changed.
    const clients = await clientsOf(this.#source);
    const stamps = await liveRuleStamps(db, studioId, () => slice.pass());
    const changed: string[] = [];
    for (const [id, stamp] of stamps) if (this.#stamps.get(id) !== stamp) changed.push(id);
    for (const id of this.#stamps.keys()) if (!stamps.has(id)) changed.push(id);
    if (changed.length > PATCH_LIMIT) return this.#rebuild(clients);
    const rules = await liveRulesByIds(db, studioId, changed);
    this.#patch(changed, rules, await this.#changedRewrites(), clients);
    return false;
  }

  async #rebuild(clients?: ReadonlyMap<string, string>): Promise<true> {
    const [built, read] = await Promise.all([buildAll(this.#source), clients ?? clientsOf(this.#source)]);
    this.#studio = built.studio;
    this.#stamps = built.stamps;
    this.#rewritesText = built.rewritesText;
    this.#clients = read;
    return true;
  }

  /** The live rewrites compiled, when they differ from those the index has; else undefined. */
  async #changedRewrites(): Promise<CompiledRewrites | undefined> {
    const { db, studioId, rewrites } = this.#source;
    const live = await rewrites.live(db, studioId);
    const text = JSON.stringify(live);
    if (text === this.#rewritesText) return undefined;
    this.#rewritesText = text;
    return new CompiledRewrites(live);
  }

  /** In one synchronous step, so no evaluation sees half a change. */
  #patch(
    ids: readonly string[],
    live: readonly StampedRule[],
    rewrites: CompiledRewrites | undefined,
    clients: ReadonlyMap<string, string> | undefined,
  ): void {
    if (clients !== undefined) this.#clients = clients;
    const rules = this.#studio.rules;
    const found = new Set<string>();
    for (const rule of live) {
      found.add(rule.id);
      rules.put(rule);
      this.#stamps.set(rule.id, rule.stamp);
    }
    for (const id of ids) {
      if (found.has(id)) continue;
      rules.remove(id);
      this.#stamps.delete(id);
    }
    if (rewrites !== undefined) this.#studio = new CompiledStudio(rules, rewrites);
  }
}

async function clientsOf({ db, studioId }: StudioSource): Promise<ReadonlyMap<string, string>> {
  return clientNamesOf(db, studioId);
}

interface Built {
  studio: CompiledStudio;
  stamps: Map<string, string>;
  rewritesText: string;
}

async function buildAll({ db, studioId, rewrites }: StudioSource): Promise<Built> {
  // On SQLite the reads and the compiling hold the event loop, which keeps answering
  // evaluations (from the index in use) in between.
  const slice = new TimeSlice();
  const pass = () => slice.pass();
  const [rules, live] = await Promise.all([liveRulesOf(db, studioId, pass), rewrites.live(db, studioId)]);
  const studio = await compileStudio(rules, live, pass);
  return {
    studio,
    stamps: new Map(rules.map((rule) => [rule.id, rule.stamp])),
    rewritesText: JSON.stringify(live),
  };
}
