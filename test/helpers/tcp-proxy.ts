// A TCP proxy on a loopback port that a test can cut, stall and resume, playing a network
// partition between searchdeck and a server (say ZooKeeper) that itself stays up, or a server
// that accepts connections and then hangs.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `127.0.0.1:port` of the proxy. */
  address: string;
  /** Connections accepted since the proxy started. */
  readonly accepted: number;
  /** Connections from clients open now. */
  readonly open: number;
  /** Ends every connection and refuses new ones (nothing listens on the port), until `resume`. */
  cut(): Promise<void>;
  /**
   * Accepts new connections and says nothing on them, as a hung server does, until `resume`;
   * what their clients send is kept for then. Connections already forwarded keep going.
   */
  stall(): void;
  /** Accepts connections again, on the same port, and forwards those held by `stall`. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** Forwards connections on a free loopback port to `target` (`host:port`). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.split(':').at(-1))];
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  const held = new Map<Socket, { sent: Buffer[]; keep: (chunk: Buffer) => void }>();
  let accepted = 0;
  let stalled = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const forward = (client: Socket, sent: Buffer[] = []) => {
    const upstream = connect(port, host);
    track(upstream);
    for (const chunk of sent) upstream.write(chunk);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const listen = async (at: number): Promise<Server> => {
    const server = createServer((client) => {
      accepted++;
      track(client);
      clients.add(client);
      client.on('close', () => {
        clients.delete(client);
        held.delete(client);
      });
      if (stalled) {
        // Read and kept for `resume` to pass on: reading is also how a hang-up is noticed.
        const sent: Buffer[] = [];
        const keep = (chunk: Buffer) => sent.push(chunk);
        client.on('data', keep);
        held.set(client, { sent, keep });
      } else {
        forward(client);
      }
    });
    server.listen(at, '127.0.0.1');
    await once(server, 'listening');
    return server;
  };
  let server: Server | undefined = await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const stop = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  return {
    address: `127.0.0.1:${address.port}`,
    get accepted() {
      return accepted;
    },
    get open() {
      return clients.size;
    },
    cut: stop,
    stall: () => {
      stalled = true;
    },
    resume: async () => {
      stalled = false;
      server ??= await listen(address.port);
      for (const [client, { sent, keep }] of held) {
        client.off('data', keep);
        forward(client, sent);
      }
      held.clear();
    },
    close: stop,
  };
}
