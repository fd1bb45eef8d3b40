// The key by which compiled schemas are kept: the JSON of the shared schemas they may refer to.

const known = new WeakMap<object, { members: readonly unknown[]; key: string }>();

/**
 * The JSON of a set of shared schemas (`$id` → schema), worked out once per set: Fastify hands
 * the compiler factories a new object holding the same schemas (cloned once per app) for
 * every plugin context of the app, dozens per app.
 */
export function sharedSchemasKey(schemas: Record<string, unknown>): string {
  const members = Object.values(schemas);
  const first = members[0];
  if (typeof first !== 'object' || first === null) return JSON.stringify(schemas);
  const remembered = known.get(first);
  if (
    remembered !== undefined &&
    remembered.members.length === members.length &&
    remembered.members.every((member, i) => member === members[i])
  ) {
    return remembered.key;
  }
  const key = JSON.stringify(schemas);
  known.set(first, { members, key });
  return key;
}
