// What the query endpoint serves from memory on one node: every profile (with its parameter
// policy), the hash of every search-only key, and when each search cluster's definition last
// changed (so its live nodes are reopened after an edit). Built at start and kept in step
// with the database through the change feed: a change made through this node applies at once,
// one made on another node as soon as its notice arrives (PostgreSQL) and at the latest at the
// next version poll (1 s).
import type { Kysely } from 'kysely';
import { clusterVersions } from '../clusters/service.js';
import type { ServedExperiment } from '../experiments/assignment.js';
import { allServedExperiments } from '../experiments/service.js';
import type { Syncable } from '../storage/change-feed.js';
import { CoalescingSync } from '../storage/coalescing-sync.js';
import type { Database } from '../storage/schema.js';
import { keyIdOf, keyOpens, toProfile } from './profiles.js';
import { selectAllKeys, selectAllProfiles } from './repository.js';
import type { QueryProfile } from './schemas.js';
import { type ProfilePolicy, profilePolicy } from './solr-request.js';

/** A profile as the node serves it, with its parameter policy worked out once as it is loaded. */
export interface ServedProfile {
  profile: QueryProfile;
  policy: ProfilePolicy;
  /** The experiment the profile names (running or not: the query path asks). */
  experiment?: ServedExperiment | undefined;
}

/** A search-only key as the node holds it: its owner and the digest of its secret. */
export interface ServedKey {
  app: string;
  profileId: string;
  hash: Buffer;
}

interface Snapshot {
  profiles: Map<string, ServedProfile>;
  keys: Map<string, ServedKey>;
  clusters: Map<string, string>;
  /** Keys as sent that opened a profile since this snapshot was read: no digest for them again. */
  opened: Map<string, { app: string; profileId: string }>;
  /** The origins the profiles over each app's collection allow (`app\0collection`). */
  origins: Map<string, Set<string>>;
}

const EMPTY: Snapshot = {
  profiles: new Map(),
  keys: new Map(),
  clusters: new Map(),
  opened: new Map(),
  origins: new Map(),
};

function profileKey(app: string, id: string): string {
  return `${app}\u0000${id}`;
}

export class ServedProfiles implements Syncable {
  readonly #db: Kysely<Database>;
  #snapshot: Snapshot = EMPTY;
  readonly #syncing = new CoalescingSync(() => this.#syncOnce());

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  profile(app: string, id: string): ServedProfile | undefined {
    return this.#snapshot.profiles.get(profileKey(app, id));
  }

  key(id: string): ServedKey | undefined {
    return this.#snapshot.keys.get(id);
  }

  /**
   * Whether `key` (as sent) opens the profile `app`/`profileId`. A key that opened once is
   * remembered until the next read of the copy (at most one per stored key, so bounded), and
   * a revoked one is gone with the snapshot it was remembered in.
   */
  keyOpens(key: string, app: string, profileId: string): boolean {
    const snapshot = this.#snapshot;
    const known = snapshot.opened.get(key);
    if (known !== undefined) return known.app === app && known.profileId === profileId;
    if (!keyOpens((id) => snapshot.keys.get(id), key, app, profileId)) return false;
    snapshot.opened.set(key, { app, profileId });
    return true;
  }

  /**
   * The app and profile a search-only key (as sent) opens, or undefined for a key that is
   * unknown, revoked or wrong.
   */
  profileOfKey(key: string): { app: string; profile: QueryProfile } | undefined {
    const id = keyIdOf(key);
    const stored = id === undefined ? undefined : this.#snapshot.keys.get(id);
    if (!stored || !this.keyOpens(key, stored.app, stored.profileId)) return undefined;
    const served = this.profile(stored.app, stored.profileId);
    return served && { app: stored.app, profile: served.profile };
  }

  /** Whether a profile of `app` over `collection` lets pages of `origin` post signals (or any origin, `*`). */
  originAllowed(app: string, collection: string, origin: string): boolean {
    const allowed = this.#snapshot.origins.get(profileKey(app, collection));
    return allowed !== undefined && (allowed.has('*') || allowed.has(origin));
  }

  /** When a cluster's definition last changed, as of the last sync; undefined when it has none. */
  clusterVersion(id: string): string | undefined {
    return this.#snapshot.clusters.get(id);
  }

  /**
   * Reads the profiles, keys and cluster versions afresh and serves them; one read at a time,
   * and a call made while one runs gets another read after it (so it sees its own change).
   */
  sync(): Promise<void> {
    return this.#syncing.run();
  }

  async settled(): Promise<void> {
    await this.#syncing.settled();
  }

  async #syncOnce(): Promise<void> {
    const [profileRows, keyRows, clusters, experiments] = await Promise.all([
      selectAllProfiles(this.#db),
      selectAllKeys(this.#db),
      clusterVersions(this.#db),
      allServedExperiments(this.#db),
    ]);
    const profiles = new Map<string, ServedProfile>();
    const origins = new Map<string, Set<string>>();
    for (const row of profileRows) {
      const profile = toProfile(row);
      const experiment =
        profile.experiment === undefined
          ? undefined
          : experiments.get(profileKey(row.app, profile.experiment));
      profiles.set(profileKey(row.app, row.id), { profile, policy: profilePolicy(profile), experiment });
      const over = profileKey(row.app, profile.collection);
      for (const origin of profile.allowedOrigins) {
        const set = origins.get(over) ?? new Set<string>();
        set.add(origin);
        origins.set(over, set);
      }
    }
    const keys = new Map<string, ServedKey>();
    for (const row of keyRows) {
      keys.set(row.id, {
        app: row.app,
        profileId: row.profile_id,
        hash: Buffer.from(row.secret_hash, 'hex'),
      });
    }
    this.#snapshot = { profiles, keys, clusters, opened: new Map(), origins };
  }
}
