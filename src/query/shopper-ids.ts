// The shopper's id and session in a query: read from the parameters the profile names for them
// (Fusion's `user_id` and `session` by default) and taken out of the shopper's parameters, so
// that they are never sent to Solr, never named in `droppedParams`, and only their keyed hashes
// are ever stored (the response signal).
import type { ShopperRequest } from './solr-request.js';

/** The shopper's id and session as sent (the first value of each), when the query carries them. */
export interface ShopperIds {
  user: string | undefined;
  session: string | undefined;
}

/** Splits the shopper's id and session off the request's parameters. */
export function takeShopperIds(
  shopper: ShopperRequest,
  names: { userParam: string; sessionParam: string },
): { shopper: ShopperRequest; ids: ShopperIds } {
  let user: string | undefined;
  let session: string | undefined;
  const params: Array<[string, string]> = [];
  for (const pair of shopper.params) {
    const [name, value] = pair;
    if (name === names.userParam) user ??= value;
    else if (name === names.sessionParam) session ??= value;
    else params.push(pair);
  }
  if (params.length === shopper.params.length)
    return { shopper, ids: { user: undefined, session: undefined } };
  return { shopper: { ...shopper, params }, ids: { user, session } };
}
