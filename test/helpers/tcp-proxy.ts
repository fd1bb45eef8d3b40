// A TCP proxy on a loopback port that a test can cut and resume, playing a network partition
// between searchdeck and a server (say ZooKeeper) that itself stays up.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `127.0.0.1:port` of the proxy. */
  address: string;
  /** Ends every connection and refuses new ones, until `resume`. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** Forwards connections on a free loopback port to `target` (`host:port`). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.split(':').at(-1))];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = async (at: number): Promise<Server> => {
    const server = createServer((client) => {
      const upstream = connect(port, host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
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
    cut: stop,
    resume: async () => {
      server ??= await listen(address.port);
    },
    close: stop,
  };
}
