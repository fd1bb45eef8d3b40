import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Listening, Notifications } from './notifications.js';
import type { Database } from './schema.js';

/** What a change feed keeps up to date: something that compares its versions with the database's. */
export interface Syncable {
  sync(): Promise<void>;
}

// The version check that catches every change, also from nodes that cannot notify
// (SQLite shared by several processes) or whose notice was lost in a reconnect.
export const CHANGE_POLL_MS = 1000;

/**
 * How a node's in-memory state (typeahead's registry, evaluation's compiled rules) follows
 * the changes of what it serves: its own at once, the other nodes' through a version poll
 * every second (tests shorten it: `Tuning.changePollMs`) and, where the store has notifications, as soon as their notice arrives on
 * `channel` (one per area, e.g. `searchdeck_typeahead`).
 */
export class ChangeFeed {
  readonly #registry: Syncable;
  readonly #notifications: Notifications | undefined;
  readonly #log: FastifyBaseLogger;
  readonly #channel: string;
  readonly #pollMs: number;
  #stopped = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #listening: Listening | undefined;

  constructor(
    registry: Syncable,
    notifications: Notifications | undefined,
    log: FastifyBaseLogger,
    channel: string,
    pollMs = CHANGE_POLL_MS,
  ) {
    this.#registry = registry;
    this.#pollMs = pollMs;
    this.#notifications = notifications;
    this.#log = log;
    this.#channel = channel;
  }

  /** Tells the other nodes that `id` changed; inside a transaction, once it commits. */
  async announce(db: Kysely<Database>, id: string): Promise<void> {
    await this.#notifications?.publish(db, this.#channel, id);
  }

  /** After a change made through this node: serve it here at once. */
  async changed(): Promise<void> {
    await this.#registry.sync();
  }

  start(): void {
    this.#schedulePoll();
    this.#listening = this.#notifications?.listen(this.#channel, () => {
      this.#registry.sync().catch(() => {});
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#pollTimer);
    await this.#listening?.close();
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#pollTimer = setTimeout(() => {
      this.#registry
        .sync()
        .catch((error) =>
          this.#log.warn({ err: error, channel: this.#channel }, 'sync with the database failed'),
        )
        .finally(() => this.#schedulePoll());
    }, this.#pollMs);
    this.#pollTimer.unref();
  }
}
