// What evaluation takes and answers, in domain terms: a shopper's query with its context,
// and what the live rules and rewrites do to it.
import type { RewriteType } from '../rewrites/rewrite.js';
import type { RuleContent, RuleType } from '../rules/rule.js';

/** A shopper's query and what narrows the rules that may fire on it. */
export interface EvaluationInput {
  q: string;
  /** The moment evaluated (effective dates are compared with it). */
  at: Date;
  segments: readonly string[];
  queryProfiles: readonly string[];
  /** The filters the shopper applied, `field:value` split at the first colon. */
  filters: ReadonlyArray<{ fieldName: string; value: string }>;
  explain: boolean;
  /** false: the studio's rewrites are not applied (a profile's or experiment variant's choice). */
  rewrites?: boolean;
}

/** A rule content that may fire, with what ranks it among the others. */
export interface EvaluatedRule {
  id: string;
  creationDate: string;
  content: RuleContent;
}

export interface AppliedRewrite {
  id: string;
  type: RewriteType;
  from: string;
  to: string;
}

export interface FiredRule {
  id: string;
  name: string;
  type: RuleType;
  precedence: number;
}

export interface Effect {
  blocked: Array<{ fieldName: string; values: string[] }>;
  boosts: Array<{ fieldName: string; value: string; weight: number }>;
  buries: Array<{ fieldName: string; value: string; weight: number }>;
  pins: Array<{ value: string; position: number }>;
  redirect: string | null;
  banners: Array<{ url: string; zone: string }>;
  /** Filter lists: only documents whose field has one of the values (each rule's one `fq`). */
  filters: Array<{ fieldName: string; values: string[] }>;
  /** Boosts by a query (`boostAttributes`): above 0 boosts, below 0 buries by the weight's size. */
  queryBoosts: Array<{ query: string; weight: number }>;
  /** Solr parameters set by rules, in the order they are applied. */
  params: Array<{ key: string; value: string; policy: ParamPolicy }>;
  /** Key/value pairs for the storefront (`responseValue`), the first rule's per key. */
  responseValues: Record<string, unknown>;
  /** The facet fields in the order the storefront shows them (`setFacetList`), or null. */
  facets: string[] | null;
}

export type ParamPolicy = 'replace' | 'append' | 'default' | 'remove';

/**
 * The rule each part of the effect comes from, entry for entry: `pins[i]` is the rule of
 * `effect.pins[i]`, `blocked[i][j]` the rule that blocked `effect.blocked[i].values[j]` (the
 * first in precedence order). Evaluation's own answer leaves it out; the query endpoint names
 * each pin's, boost's, bury's and block's rule in `fusion.effect`, so that a preview can say
 * which rule moved which document.
 */
export interface EffectSources {
  blocked: string[][];
  boosts: string[];
  buries: string[];
  pins: string[];
  filters: string[];
  queryBoosts: string[];
  params: string[];
  /** The rule of each response value, by key. */
  responseValues: Record<string, string>;
  facets: string | null;
}

export interface SolrParams {
  q: string;
  fq: string[];
  bq: string[];
  elevateIds: string | null;
  excludeIds: string | null;
  /** Other Solr parameters, applied in order to the request (`setParams`). */
  params: Array<{ key: string; value: string; policy: ParamPolicy }>;
  /** `facet.field`s in order (`setFacetList`); the request also gets `facet=true`. */
  facetFields: string[];
}

/** A part of a rule's effect that another rule's took precedence over. */
export interface LostEffect {
  rule: { id: string; name: string };
  /** What did not apply, e.g. `pin P1 at position 1`. */
  lost: string;
  /** The rule whose effect applied instead. */
  to: { id: string; name: string };
  reason: string;
}

export interface Evaluation {
  query: string;
  rewrittenQuery: string;
  rewrites: AppliedRewrite[];
  rules: FiredRule[];
  effect: Effect;
  sources: EffectSources;
  solr: SolrParams;
  explanation?: { lost: LostEffect[] };
}
