// Who a change is recorded as, from the request that made it.
import type { FastifyRequest } from 'fastify';
import { type Actor, recordedAs } from '../oauth/actor.js';

/** The actor of the jobs the service runs by itself. */
export const SYSTEM_ACTOR = 'system';

/**
 * The actor of an administrative request: "admin" for the first user (as before there were
 * users), "user:<name>" for any other user, by Basic credential or console session.
 */
export function adminActor(request: FastifyRequest): string {
  const username = request.principal?.username;
  return username === undefined || username === 'admin' ? 'admin' : `user:${username}`;
}

/**
 * The actor of a Rules API request: its API client or the signed-in user, as createdBy names
 * it (`client:<name>`, `user:<name>`), except the first user, who is "admin" here as in every
 * other change, so the history has one spelling per person.
 */
export function clientActor(actor: Actor): string {
  return 'userName' in actor && actor.userName === 'admin' ? 'admin' : recordedAs(actor);
}
