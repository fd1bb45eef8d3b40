import type { FastifyInstance } from 'fastify';
import { adminAuth } from '../helpers/app.js';

export const PASSWORD = 'a-user-password';

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Creates a user through the API as the admin. */
export async function createUser(
  app: FastifyInstance,
  username: string,
  role: string,
  extra: { studios?: string[]; typeaheadInstances?: string[] } = {},
): Promise<void> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/users',
    headers: { authorization: adminAuth },
    payload: { username, password: PASSWORD, role, ...extra },
  });
  if (response.statusCode !== 201) throw new Error(`creating ${username}: ${response.body}`);
}

export interface SignedIn {
  cookie: string;
  csrfToken: string;
  setCookie: string;
}

/** Signs in and answers the cookie to send and the CSRF token. */
export async function signIn(
  app: FastifyInstance,
  username: string,
  password = PASSWORD,
  remoteAddress = '198.51.100.20',
): Promise<SignedIn> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/session',
    remoteAddress,
    payload: { username, password },
  });
  if (response.statusCode !== 200) throw new Error(`signing in ${username}: ${response.body}`);
  const setCookie = String(response.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0] ?? '', csrfToken: response.json().csrfToken, setCookie };
}
