// HTTP Basic credentials (RFC 7617), as two interfaces take them: a user's name and password
// on the Administrative API, an API client's id and secret at the token endpoint.

/** Parses `Authorization: Basic …` into user and password, or undefined. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
