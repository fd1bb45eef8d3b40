/**
 * One row per relationship, always in its canonical direction (dependsOn, isPartOf,
 * inContextOf, relatesTo, self): a link and its reverse are the same row, so a check in
 * either direction is one primary-key lookup and the reverse index serves the other end.
 */
export interface LinkTable {
  subject: string;
  object: string;
  link_type: string;
  originator: string;
  /** 1 when the client wrote the link in the reverse direction (shown so in an unfiltered list). */
  given_reversed: number;
  created_at: string;
}
