// The console's session cookie: read from the Cookie header, written as Set-Cookie.

export const SESSION_COOKIE = 'searchdeck_session';

/** The session id in a Cookie header, if any. */
export function sessionIdFrom(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
  }
  return undefined;
}

/** Set-Cookie for a new session: HttpOnly, SameSite=Strict, Secure when asked. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** Set-Cookie that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
