// The one API client of the console: openapi-fetch typed by the service's own OpenAPI
// document (schema.d.ts, generated), so a route or body the service does not have is a
// type error here. The session cookie goes along by itself (same origin); state-changing
// requests carry the CSRF token the session endpoint handed out.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

const csrfHeader: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken !== undefined) {
      request.headers.set('x-csrf-token', csrfToken);
    }
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(csrfHeader);

/** One field's message from the common error body. */
export interface FieldError {
  field: string;
  message: string;
}

/** The common error body, as far as the console reads it. */
export interface ErrorBody {
  status?: number;
  message?: string;
  code?: string;
  errors?: FieldError[];
  details?: Record<string, unknown>;
}

export function errorOf(error: unknown): ErrorBody {
  if (error !== null && typeof error === 'object') return error as ErrorBody;
  return { message: String(error) };
}

/** What a call of `api` settles to: its data or the refusal's body, beside the answer. */
type Settled = { data?: unknown; error?: unknown; response: Response };
/** The data of a call that succeeded (openapi-fetch's success branch, where `data` is required). */
type DataOf<R extends Settled> = Extract<R, { data: unknown }>['data'];

/**
 * A call's data; a refusal throws the common error body, for pages that run several calls in
 * one try (an answer without a JSON body, such as a proxy's page, throws its status text).
 */
export async function dataOrThrow<R extends Settled>(call: Promise<R>): Promise<DataOf<R>> {
  const { data, error, response } = await call;
  if (response.ok) return data as DataOf<R>;
  throw error !== null && typeof error === 'object' ? errorOf(error) : { message: response.statusText };
}

/** The message the API gave for `field` (or a path inside it), to show beside the field. */
export function messageFor(error: ErrorBody | undefined, field: string): string | undefined {
  return error?.errors?.find(
    (e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`),
  )?.message;
}

export type Role = 'admin' | 'merchandiser' | 'viewer';

export interface Session {
  username: string;
  role: Role;
  /** Studios whose rules and rewrites a merchandiser edits (all for admin). */
  studios?: string[];
  typeaheadInstances?: string[];
}

type SessionAnswer = paths['/api/session']['get']['responses'][200]['content']['application/json'];

function sessionOf(body: SessionAnswer): Session {
  setCsrfToken(body.csrfToken);
  return {
    username: body.username,
    role: body.role as Role,
    studios: body.studios,
    typeaheadInstances: body.typeaheadInstances,
  };
}

/** Who is signed in, or undefined. */
export async function currentSession(): Promise<Session | undefined> {
  const { data } = await api.GET('/api/session');
  return data ? sessionOf(data) : undefined;
}

export async function signIn(username: string, password: string): Promise<Session | ErrorBody> {
  const { data, error } = await api.POST('/api/session', { body: { username, password } });
  return data ? sessionOf(data) : errorOf(error);
}

export async function signOut(): Promise<void> {
  await api.DELETE('/api/session');
  setCsrfToken(undefined);
}

/** What a role may change: the UI shows no button that would answer 403. */
export function mayEdit(session: Session, area: 'rules' | 'typeahead' | 'platform', scope?: string): boolean {
  if (session.role === 'admin') return true;
  if (session.role !== 'merchandiser') return false;
  if (area === 'platform') return false;
  const allowed = area === 'rules' ? session.studios : session.typeaheadInstances;
  return scope === undefined || allowed === undefined || allowed.includes(scope);
}
