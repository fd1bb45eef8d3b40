/**
 * Who acts through the Rules & Rewrites API: the studio, and either the API client of the
 * bearer token or the user of a console session.
 */
export type Actor = { studioId: string; clientName: string } | { studioId: string; userName: string };

/** How createdBy and lastModifiedBy name the actor: `client:<name>` or `user:<name>`. */
export function recordedAs(actor: Actor): string {
  return 'userName' in actor ? `user:${actor.userName}` : `client:${actor.clientName}`;
}
