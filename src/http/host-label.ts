import { isIP } from 'node:net';

/**
 * The first label of a host name (`shop-en` of `shop-en.typeahead.example.com:8443`), in lower
 * case, if the host has several labels: it names the typeahead instance or rules studio a
 * request is meant for. A single-label host or an address names none.
 */
export function hostLabel(host: string | undefined): string | undefined {
  // An IPv6 address comes in brackets, and may hold dots (`[::ffff:10.0.0.1]`).
  if (host === undefined || host.startsWith('[')) return undefined;
  const dot = host.indexOf('.');
  if (dot <= 0) return undefined;
  // An address names nothing: 127 of 127.0.0.1 is no label.
  const colon = host.lastIndexOf(':');
  if (isIP(colon > dot ? host.slice(0, colon) : host) !== 0) return undefined;
  return host.slice(0, dot).toLowerCase();
}
