// A host name or IPv4 address (the ZooKeeper client splits on ':', so IPv6 cannot be written).
const HOST = '[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)*';
const SERVER = new RegExp(`^(${HOST}):(\\d{1,5})$`);
// ZooKeeper path segments: no whitespace or control characters, not "." or "..".
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CHROOT_SEGMENT = /^[^\s\u0000-\u001f\u007f-\u009f/]+$/;

/**
 * Why `connectString` is not a ZooKeeper connect string `host:port[,host:port…][/chroot]`,
 * or undefined when it is one.
 */
export function zooKeeperConnectStringProblem(connectString: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(connectString)) {
    return 'connectString is a URL, but cloud is true (the default): set cloud to false for a standalone Solr, or give the ZooKeeper connect string (host:port[,host:port…][/chroot])';
  }
  const usage = 'connectString must be a ZooKeeper connect string host:port[,host:port…][/chroot]';
  const slash = connectString.indexOf('/');
  const servers = (slash === -1 ? connectString : connectString.slice(0, slash)).split(',');
  for (const server of servers) {
    const match = SERVER.exec(server);
    // Never echo what may be user:password@host.
    if (!match) return `${usage}; ${server.includes('@') ? 'a server' : `"${server}"`} is not host:port`;
    const port = Number(match[2]);
    if (port < 1 || port > 65535) return `${usage}; ${port} is not a port number (1-65535)`;
  }
  if (slash === -1) return undefined;
  const chroot = connectString.slice(slash);
  const segments = chroot.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || !CHROOT_SEGMENT.test(s))) {
    return `${usage}; the chroot "${chroot}" must be a ZooKeeper path like /solr (no empty, "." or ".." parts, no trailing "/")`;
  }
  return undefined;
}

/** Why `connectString` is not the http(s) base URL of a Solr node, or undefined when it is one. */
export function solrBaseUrlProblem(connectString: string): string | undefined {
  const usage =
    'connectString must be the http(s) base URL of a Solr node, like http://solr1:8983/solr, when cloud is false';
  let url: URL;
  try {
    url = new URL(connectString);
  } catch {
    return `${usage}; it is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${usage}; the scheme is ${url.protocol}`;
  if (!url.hostname) return `${usage}; it names no host`;
  // Such a URL would be shown in every answer and log line: credentials belong in authConfig.
  if (url.username || url.password) {
    return 'connectString must not carry credentials; put them in authConfig (authType BASIC), where they are kept secret';
  }
  if (url.search || url.hash) return `${usage}; a base URL has no query or fragment`;
  return undefined;
}
