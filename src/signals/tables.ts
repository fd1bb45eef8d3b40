// The raw signals: one row per answered shopper query (the response signal the query path
// writes) and one per event a shop posts (click, cart, purchase, custom types). Times are epoch
// milliseconds; shoppers' ids and sessions are keyed hashes, never the values themselves.

/** A response signal: what one answered query showed. `id` is the query id the answer carried. */
export interface SearchSignalTable {
  id: string;
  app: string;
  profile_id: string;
  collection: string;
  at: number;
  /** The shopper's query as sent, and its key (`src/text/term-key.ts`) by which searches are counted. */
  query: string;
  query_key: string;
  /** The query after rewrites, as sent to Solr. */
  rewritten: string;
  /** Solr's numFound. */
  hits: number;
  /** JSON array of the document ids on the page, in order (position = index + 1). */
  doc_ids: string;
  /** JSON array of the ids of the rules that fired. */
  rule_ids: string;
  segment: string | null;
  user_hash: string | null;
  session_hash: string | null;
  /** 1 when made with a search-only key (counted in analytics); 0 for users and the console. */
  counted: number;
  /** The experiment and variant the search was assigned to (counted for the experiment), else null. */
  experiment: string | null;
  variant: string | null;
  /** The keyed hash of the experiment's uniqueIdParameter value that assigned it, else null. */
  unit_hash: string | null;
}

/** An event a shop posted through the Signals API. */
export interface SignalTable {
  id: string;
  app: string;
  collection: string;
  type: string;
  at: number;
  received_at: number;
  doc_id: string | null;
  query: string | null;
  query_key: string | null;
  /** The search it is attributed to: the fusion_query_id sent, or the one found for it. */
  query_id: string | null;
  /** 'sent' (fusion_query_id in the signal), 'inferred' (the shopper's last search showing the document) or null. */
  attribution: string | null;
  position: number | null;
  price: number | null;
  quantity: number | null;
  user_hash: string | null;
  session_hash: string | null;
  /** JSON object of the remaining params, as sent. */
  params: string;
}
