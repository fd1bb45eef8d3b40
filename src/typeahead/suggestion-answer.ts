/** A suggestions answer ready to send: the JSON body and its entity tag. */
export interface SuggestionAnswer {
  readonly body: string;
  readonly etag: string;
}

/** Serialises display forms into the response body and tags it by content. */
export function suggestionAnswer(terms: readonly string[]): SuggestionAnswer {
  const body = JSON.stringify(terms);
  return { body, etag: etagOf(body) };
}

// Tagging by content rather than by index version keeps a client's cached
// answer valid across hourly rebuilds that leave its prefix unchanged, and
// gives every node behind a load balancer the same tag for the same answer.
// The tag is weak so that a proxy that compresses the body may keep it.
function etagOf(body: string): string {
  // FNV-1a over the UTF-16 code units, two 32-bit lanes with different offsets: a tenth of
  // the cost of a cryptographic digest, and 64 bits are plenty to tell the answers of one
  // prefix apart (a tag only has to change when the answer does, nobody forges it).
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 13);
  }
  return `W/"${lane(a)}${lane(b)}"`;
}

// Fixed width, so that the tag's shape never depends on its value.
function lane(hash: number): string {
  return (hash >>> 0).toString(36).padStart(7, '0');
}
