// Which peers may tell us, through X-Forwarded-For/-Proto/-Host, who the client is. The
// answer becomes Fastify's `trustProxy`, from which request.ip (failure limits, logs),
// request.protocol and request.hostname are taken.
import { isIP } from 'node:net';

/** Fastify's `trustProxy`: nobody, everybody, or a list of addresses and ranges. */
export type TrustedProxies = boolean | string[];

/** The address ranges proxy-addr (Fastify's) knows by name. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads SEARCHDECK_TRUST_PROXY: unset or `false` trusts nobody (the socket's address is the
 * client); a comma-separated list of addresses, CIDR ranges and the names `loopback`,
 * `linklocal`, `uniquelocal` trusts those peers; `true` trusts every peer. A hop count is
 * refused: Fastify 5 takes one but then trusts no peer at all (it cannot tell a proxy from a
 * client that sends enough hops), which would silently be the same as off. Throws an Error
 * saying what is wrong.
 */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    throw new Error("a hop count is not taken; list the proxies' addresses or ranges (10.0.0.0/8)");
  }
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const problem = entryProblem(entry);
    if (problem) throw new Error(problem);
  }
  return entries;
}

function entryProblem(entry: string): string | undefined {
  if (entry === '') return 'an entry of the list is empty';
  if (NAMED_RANGES.has(entry)) return undefined;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  const usage = `"${entry}" is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`;
  if (family === 0 || rest.length > 0) return usage;
  if (prefix === undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return `${usage}; the prefix must be 0-${bits}`;
  return undefined;
}
