import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

/**
 * Notices between the nodes sharing one database. Only PostgreSQL has them; on SQLite the
 * store has none, and a node relies on polling alone.
 */
export interface Notifications {
  /**
   * Sends `payload` on `channel` through `db`; inside a transaction it is delivered when
   * the transaction commits, and not at all when it rolls back.
   */
  publish(db: Kysely<Database>, channel: string, payload: string): Promise<void>;
  /** Calls `onNotice` with every notice's payload on `channel`, reconnecting after a lost connection, until closed. */
  listen(channel: string, onNotice: (payload: string) => void): Listening;
}

export interface Listening {
  close(): Promise<void>;
}

const RECONNECT_MS = 1000;
// A channel is an identifier in LISTEN, which takes no bound parameter.
const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * PostgreSQL's NOTIFY and LISTEN; each listener holds its own connection outside the pool.
 * Channels belong to the database, not to a schema: a store that works in its own schema
 * (`pgSchema`) names its channels after it, so that stores beside it in other schemas of the
 * same database do not wake its feeds.
 */
export function postgresNotifications(url: string, schema?: string): Notifications {
  const scoped = (channel: string) =>
    schema === undefined ? channel : `${channel}__${schema.toLowerCase()}`;
  return {
    async publish(db, channel, payload) {
      await sql`select pg_notify(${scoped(channel)}, ${payload})`.execute(db);
    },
    listen(channel, onNotice) {
      const name = scoped(channel);
      if (!CHANNEL_NAME.test(name)) throw new Error(`not a channel name: ${name}`);
      return listenOn(url, name, onNotice);
    },
  };
}

function listenOn(url: string, channel: string, onNotice: (payload: string) => void): Listening {
  let closed = false;
  let client: pg.Client | undefined;
  const connect = () => {
    if (closed) return;
    const current = new pg.Client({ connectionString: url });
    client = current;
    let retried = false;
    const retry = () => {
      if (retried) return;
      retried = true;
      current.end().catch(() => {});
      if (!closed) setTimeout(connect, RECONNECT_MS).unref();
    };
    current.on('error', retry);
    current.on('end', retry);
    current.on('notification', (notice) => onNotice(notice.payload ?? ''));
    current
      .connect()
      .then(() => current.query(`listen ${channel}`))
      .catch(retry);
  };
  connect();
  return {
    async close() {
      closed = true;
      await client?.end().catch(() => {});
    },
  };
}
