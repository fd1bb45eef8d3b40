// The library ships no types. This declares only what src/clusters/zookeeper.ts and the
// test harness use, including the connection manager internals we need to release
// sockets the public `close()` leaves behind (see zookeeper.ts).
declare module 'node-zookeeper-client' {
  import type { EventEmitter } from 'node:events';
  import type { Socket } from 'node:net';

  export interface ZooKeeperException extends Error {
    getCode(): number;
    readonly code: number;
  }

  export interface ConnectionManager extends EventEmitter {
    state: number;
    socket?: Socket;
    connectTimeoutHandler: ReturnType<typeof setTimeout> | null;
    findNextServer(callback: (server: { host: string; port: number }) => void): void;
  }

  export interface Client extends EventEmitter {
    readonly connectionManager: ConnectionManager;
    connect(): void;
    close(): void;
    exists(path: string, callback: (error: ZooKeeperException | null, stat: unknown) => void): void;
    /** With a watcher, told once when the node is created, changed or removed (set even when absent). */
    exists(
      path: string,
      watcher: (event: unknown) => void,
      callback: (error: ZooKeeperException | null, stat: unknown) => void,
    ): void;
    getChildren(path: string, callback: (error: ZooKeeperException | null, children: string[]) => void): void;
    /** With a watcher, told once when the children change next. */
    getChildren(
      path: string,
      watcher: (event: unknown) => void,
      callback: (error: ZooKeeperException | null, children: string[]) => void,
    ): void;
    remove(path: string, version: number, callback: (error: ZooKeeperException | null) => void): void;
    getData(
      path: string,
      callback: (error: ZooKeeperException | null, data: Buffer | undefined) => void,
    ): void;
    create(
      path: string,
      data: Buffer | null,
      callback: (error: ZooKeeperException | null, path: string) => void,
    ): void;
    mkdirp(path: string, callback: (error: ZooKeeperException | null, path: string) => void): void;
  }

  export interface ClientOptions {
    sessionTimeout?: number;
    spinDelay?: number;
    retries?: number;
  }

  const zookeeper: {
    createClient(connectString: string, options?: ClientOptions): Client;
    Exception: { NO_NODE: number; NODE_EXISTS: number; CONNECTION_LOSS: number };
  };
  export default zookeeper;
}
