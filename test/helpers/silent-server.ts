import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import type { TestContext } from 'node:test';

/**
 * A TCP server on a free loopback port that accepts connections and never answers, closed when
 * the test ends. It reads (and ignores) what arrives, so it notices when a client hangs up.
 */
export async function silentServer(t: TestContext): Promise<{ port: number; server: Server }> {
  const silent = createServer((socket) => socket.resume());
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  t.after(() => silent.close());
  const address = silent.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server: silent };
}
