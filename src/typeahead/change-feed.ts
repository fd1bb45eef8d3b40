import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Listening, Notifications } from '../storage/notifications.js';
import type { Database } from '../storage/schema.js';
import type { TypeaheadRegistry } from './registry.js';

/** The channel on which nodes sharing a PostgreSQL database hear about each other's changes. */
const CHANGE_CHANNEL = 'searchdeck_typeahead';

// The version check that catches every change, also from nodes that cannot notify
// (SQLite shared by several processes) or whose notice was lost in a reconnect.
const POLL_MS = 1000;

/**
 * How a node's registry follows the changes of what instances serve: its own at once, the
 * other nodes' through a version poll every second and, where the store has notifications,
 * as soon as their notice arrives.
 */
export class ChangeFeed {
  readonly #registry: TypeaheadRegistry;
  readonly #notifications: Notifications | undefined;
  readonly #log: FastifyBaseLogger;
  #stopped = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #listening: Listening | undefined;

  constructor(registry: TypeaheadRegistry, notifications: Notifications | undefined, log: FastifyBaseLogger) {
    this.#registry = registry;
    this.#notifications = notifications;
    this.#log = log;
  }

  /** Tells the other nodes that instance `id` changed; inside a transaction, once it commits. */
  async announce(db: Kysely<Database>, id: string): Promise<void> {
    await this.#notifications?.publish(db, CHANGE_CHANNEL, id);
  }

  /** After a change made through this node: serve it here at once. */
  async changed(): Promise<void> {
    await this.#registry.sync();
  }

  start(): void {
    this.#schedulePoll();
    this.#listening = this.#notifications?.listen(CHANGE_CHANNEL, () => {
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
        .catch((error) => this.#log.warn({ err: error }, 'typeahead: sync with the database failed'))
        .finally(() => this.#schedulePoll());
    }, POLL_MS);
    this.#pollTimer.unref();
  }
}
