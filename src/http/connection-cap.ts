// A cap on the connections one client address holds open at once, so that one client cannot
// take all of the process's sockets and memory (many slow requests, or idle connections).
// Counted per socket peer: behind a load balancer every client shares its address, which is
// why the proxies of SEARCHDECK_TRUST_PROXY are not capped (docs/decisions.md).
import type { Server } from 'node:http';
import { BlockList, isIPv4, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { TrustedProxies } from './trust-proxy.js';

/** The ranges proxy-addr (Fastify's trustProxy) means by these names. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Closes at once every new connection from an address that already holds `max` open ones
 * (0: no cap), as Node does past `server.maxConnections`; peers among `trusted` are never
 * capped. Refusals are counted; the first of an address is logged (again only after it held
 * no connection at all), so a client hammering at the cap does not flood the log.
 */
export function capConnectionsPerAddress(
  server: Server,
  max: number,
  trusted: TrustedProxies,
  log: FastifyBaseLogger,
  metrics: Registry,
): void {
  const refused = new Counter({
    name: 'searchdeck_http_connections_refused_total',
    help: 'Connections closed at once because their address held SEARCHDECK_MAX_CONNECTIONS_PER_ADDRESS open ones',
    registers: [metrics],
  });
  if (max === 0 || trusted === true) return;
  const exempt = trustedList(trusted);
  const open = new Map<string, number>();
  const refusing = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || exempt?.check(address, isIPv4(address) ? 'ipv4' : 'ipv6')) return;
    const count = open.get(address) ?? 0;
    if (count >= max) {
      if (!refusing.has(address)) {
        refusing.add(address);
        log.warn(
          { client: address, max },
          'connection refused: this address holds as many open connections as SEARCHDECK_MAX_CONNECTIONS_PER_ADDRESS allows',
        );
      }
      refused.inc();
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) {
        open.set(address, left);
        return;
      }
      open.delete(address);
      refusing.delete(address);
    });
  });
}

function trustedList(trusted: false | string[]): BlockList | undefined {
  if (trusted === false) return undefined;
  const list = new BlockList();
  for (const entry of trusted.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const [address = '', prefix] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}
