import { createHash } from 'node:crypto';

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
  const digest = createHash('sha1').update(body).digest('base64url');
  // 96 bits are plenty to tell the answers of one prefix apart.
  return `W/"${digest.slice(0, 16)}"`;
}
