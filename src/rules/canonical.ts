// Contents are compared by meaning, not by the order in which a client (or a
// JSON column) happened to write their keys.

/** JSON with object keys sorted at every depth; undefined members are left out, as JSON does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member === null || typeof member !== 'object' || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).sort()) sorted[key] = (member as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Whether two contents say the same thing. Arrays keep their order: a reordered
 * list of pins or values is an edit the editor made and should publish.
 */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
