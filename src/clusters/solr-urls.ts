/**
 * The base URL of a SolrCloud node from its live-node name, as Solr itself derives it:
 * `host:port_context` (context URL-encoded, `_` before it) → `scheme://host:port/context`.
 */
export function baseUrlForNodeName(nodeName: string, urlScheme: 'http' | 'https'): string {
  const separator = nodeName.indexOf('_');
  if (separator === -1) return `${urlScheme}://${nodeName}`;
  const hostAndPort = nodeName.slice(0, separator);
  const context = decodeURIComponent(nodeName.slice(separator + 1));
  return `${urlScheme}://${hostAndPort}${context ? `/${context}` : ''}`;
}

/** The live-node name Solr would give the node at `baseUrl`, so standalone nodes are named like cloud ones. */
export function nodeNameForBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const context = url.pathname.replace(/^\/+|\/+$/g, '');
  return `${url.hostname}:${port}_${encodeURIComponent(context)}`;
}

/** `urlScheme` from the bytes of `/clusterprops.json`; Solr's default (`http`) when absent or unreadable. */
export function urlSchemeFrom(clusterProps: Buffer | null): 'http' | 'https' {
  if (!clusterProps || clusterProps.length === 0) return 'http';
  try {
    const props: unknown = JSON.parse(clusterProps.toString('utf8'));
    const scheme =
      typeof props === 'object' && props !== null && 'urlScheme' in props ? props.urlScheme : undefined;
    return typeof scheme === 'string' && scheme.toLowerCase() === 'https' ? 'https' : 'http';
  } catch {
    return 'http';
  }
}

/** `url` without any user or password in it, fit for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    // Unparseable, so we cannot tell where a password would end: drop everything up to the last '@'.
    return url.replace(/^([^:/]*:\/\/)?.*@/, '$1');
  }
}
