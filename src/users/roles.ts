// Who may do what on the Administrative API: declared on the route, checked for every route.
import type { FastifyRequest } from 'fastify';

export const ROLES = ['admin', 'merchandiser', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** A user as the checks see them: the role and what a merchandiser may edit. */
export interface Principal {
  username: string;
  role: Role;
  studios: readonly string[];
  typeaheadInstances: readonly string[];
}

/**
 * What a route declares about its access (route `config.access`); a route that declares
 * nothing is read by every role and changed by admins only.
 * - `admin`: reads too are for admins only (users).
 * - `read`: a POST that changes nothing (a check, a preview), open to every role.
 * - `{ studio }` / `{ typeaheadInstance }`: the path parameter that names the studio or the
 *   typeahead instance a merchandiser must have listed to change it.
 */
export type Access = 'admin' | 'read' | { studio: string } | { typeaheadInstance: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `principal` may call a route with this access, method and path parameters. */
export function mayCall(
  principal: Principal,
  method: string,
  access: Access | undefined,
  params: Record<string, string | undefined>,
): boolean {
  if (principal.role === 'admin') return true;
  if (access === 'admin') return false;
  if (READS.has(method) || access === 'read') return true;
  if (principal.role !== 'merchandiser' || access === undefined) return false;
  if ('studio' in access) return principal.studios.includes(params[access.studio] ?? '');
  return principal.typeaheadInstances.includes(params[access.typeaheadInstance] ?? '');
}

/** The roles that may call a route, as the OpenAPI document states them (`x-roles`). */
export function rolesOf(method: string, access: Access | undefined): string[] {
  if (access === 'admin') return ['admin'];
  if (READS.has(method) || access === 'read') return ['admin', 'merchandiser', 'viewer'];
  if (access === undefined) return ['admin'];
  return ['admin', 'studio' in access ? 'merchandiser (of the studio)' : 'merchandiser (of the instance)'];
}

/** The route's declared access. */
export function accessOf(request: FastifyRequest): Access | undefined {
  return request.routeOptions.config.access;
}

/**
 * Whether `principal` may use the Rules API of a studio through a session: admins every
 * studio, merchandisers their listed studios, viewers read every studio.
 */
export function mayUseStudio(principal: Principal, studioId: string, method: string): boolean {
  if (principal.role === 'admin') return true;
  if (principal.role === 'merchandiser') return principal.studios.includes(studioId);
  return READS.has(method);
}
