// The Solr request of a shopper's query: the profile's defaults, the shopper's parameters the
// profile allows (every other one dropped), and what evaluation made of the query.
import type { Evaluation } from '../evaluation/evaluation.js';
import { ValidationError } from '../http/errors.js';
import { type FieldChoices, isForbiddenParam, RefusedValue, shopperValue } from './shopper-params.js';

/**
 * The query endpoint's own parameters, never sent to Solr: evaluation's context, and
 * `staging` (evaluate the studio's staging content, for users who may change it).
 */
const CONTEXT_PARAMS = new Set(['q', 'segment', 'staging']);

const MAX_Q = 1000;
const MAX_SEGMENTS = 100;

/** What the endpoint reads of a shopper's parameters. */
export interface ShopperRequest {
  q: string;
  segments: string[];
  /** `staging=true`: the studio's staging rules and rewrites instead of the live ones. */
  staging: boolean;
  /** Every other parameter as sent, in order. */
  params: Array<[string, string]>;
}

/** Splits a shopper's parameters into the query, the segments and the rest; 400 on a bad q. */
export function readShopperRequest(search: URLSearchParams): ShopperRequest {
  const qs = search.getAll('q');
  if (qs.length > 1)
    throw new ValidationError([{ field: 'q', message: 'q must be given once' }], 'invalid-parameter');
  const q = qs[0] ?? '';
  if (q.length > MAX_Q) {
    throw new ValidationError(
      [{ field: 'q', message: `q must be at most ${MAX_Q} characters` }],
      'invalid-parameter',
    );
  }
  const segments = search.getAll('segment');
  if (segments.length > MAX_SEGMENTS || segments.some((s) => s.length === 0 || s.length > 100)) {
    throw new ValidationError(
      [{ field: 'segment', message: `at most ${MAX_SEGMENTS} segments of 1-100 characters` }],
      'invalid-parameter',
    );
  }
  const staging = search.getAll('staging');
  if (staging.length > 1 || (staging.length === 1 && staging[0] !== 'true' && staging[0] !== 'false')) {
    throw new ValidationError(
      [{ field: 'staging', message: 'staging must be given once, as true or false' }],
      'invalid-parameter',
    );
  }
  const params: Array<[string, string]> = [];
  for (const [name, value] of search) if (!CONTEXT_PARAMS.has(name)) params.push([name, value]);
  return { q, segments, staging: staging[0] === 'true', params };
}

export interface ProfileParams {
  defaults: Record<string, string | number | boolean | string[]>;
  allowedParams: readonly string[];
  sortFields?: readonly string[] | undefined;
  returnFields?: readonly string[] | undefined;
}

/**
 * What a profile's policy comes to: worked out once when the profile is loaded into memory
 * (served-profiles.ts), not per query.
 */
export interface ProfilePolicy extends FieldChoices {
  allowed: ReadonlySet<string>;
  defaults: ReadonlyArray<readonly [string, string]>;
}

/** The parameters a profile lets a shopper send (never a forbidden one), and its defaults as pairs. */
export function profilePolicy(profile: ProfileParams): ProfilePolicy {
  const defaults: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(profile.defaults)) {
    for (const one of [value].flat()) defaults.push([name, String(one)]);
  }
  return {
    // A profile stored before a name was forbidden still never passes it on.
    allowed: new Set(profile.allowedParams.filter((name) => !isForbiddenParam(name))),
    defaults,
    sortFields: profile.sortFields === undefined ? undefined : new Set(profile.sortFields),
    returnFields: profile.returnFields === undefined ? undefined : new Set(profile.returnFields),
  };
}

/**
 * The `setParams` rules' parameters (and an experiment variant's), in evaluation's order, over the profile's and the
 * shopper's: `replace` drops the values before it (a key replaced twice keeps both new
 * values), `append` adds one, `default` sets one only where none was, `remove` drops them.
 * What evaluation sets itself (`q`, `bq`, its `fq`) comes after, so a rule never undoes a block.
 */
function applyRuleParams(
  body: URLSearchParams,
  params: ReadonlyArray<Evaluation['solr']['params'][number]>,
): void {
  const replaced = new Set<string>();
  const defaulted = new Set<string>();
  for (const { key, value, policy } of params) {
    // Checked when the rule was saved; a name forbidden since is still never sent.
    if (isForbiddenParam(key)) continue;
    if (policy === 'remove') body.delete(key);
    else if (policy === 'append') body.append(key, value);
    else if (policy === 'replace') {
      if (!replaced.has(key)) body.delete(key);
      replaced.add(key);
      body.append(key, value);
    } else if (!body.has(key) || defaulted.has(key)) {
      defaulted.add(key);
      body.append(key, value);
    }
  }
}

const MAX_FILTERS = 100;
// `field:value` or `field:"a value"`: a filter that names one value of one field.
const ONE_VALUE = /^([A-Za-z_][A-Za-z0-9_.]*):(?:"((?:[^"\\]|\\.)*)"|([^\s"()[\]{}\\]+))$/;

/**
 * The shopper's filters that name one value of a field (`fq=category:shoes`), as evaluation's
 * `filter`s, so that rules on `conditions.fieldValues` fire on category pages. Only when the
 * profile passes the shopper's `fq` on: a filter Solr never gets is not the page's.
 */
export function shopperFilters(shopper: ShopperRequest, policy: ProfilePolicy): string[] {
  if (!policy.allowed.has('fq')) return [];
  const filters: string[] = [];
  for (const [name, value] of shopper.params) {
    if (name !== 'fq' || filters.length === MAX_FILTERS) continue;
    const match = ONE_VALUE.exec(value.trim());
    if (match === null) continue;
    const one = match[2] === undefined ? match[3]! : match[2].replace(/\\(.)/g, '$1');
    filters.push(`${match[1]}:${one}`);
  }
  return filters;
}

/**
 * The form body of the Solr request, and the names of the shopper's parameters dropped (those
 * the profile does not allow). An allowed parameter whose value Solr would read as more than a
 * value (local parameters, a nested query, a function; shopper-params.ts) is refused: 400 naming
 * it, before anything is sent. The profile's policy is worked out here when the caller holds
 * none prepared.
 */
export function solrRequest(
  profile: ProfileParams,
  shopper: ShopperRequest,
  evaluation: Evaluation,
  policy: ProfilePolicy = profilePolicy(profile),
  variantParams: ReadonlyArray<Evaluation['solr']['params'][number]> = [],
): { body: URLSearchParams; dropped: string[] } {
  const body = new URLSearchParams();
  const { allowed, defaults } = policy;
  const passed: Array<[string, string]> = [];
  const dropped = new Set<string>();
  for (const [name, value] of shopper.params) {
    if (!allowed.has(name)) {
      dropped.add(name);
      continue;
    }
    const sent = shopperValue(name, value, policy);
    if (sent instanceof RefusedValue) {
      throw new ValidationError([{ field: name, message: sent.message }], 'invalid-parameter');
    }
    passed.push([name, sent]);
  }
  const fromShopper = new Set(passed.map(([name]) => name));
  for (const [name, value] of defaults) {
    if (fromShopper.has(name) && name !== 'fq') continue;
    body.append(name, value);
  }
  for (const [name, value] of passed) body.append(name, value);
  // An experiment variant's params are the merchandiser's, as the profile's defaults are: over
  // the shopper's whatever the profile allows, never a forbidden one; the rules' come after.
  applyRuleParams(body, variantParams);
  const { solr } = evaluation;
  applyRuleParams(body, solr.params);
  if (solr.facetFields.length > 0) {
    // The rule's facets, in its order, instead of the profile's or the shopper's.
    body.set('facet', 'true');
    body.delete('facet.field');
    for (const field of solr.facetFields) body.append('facet.field', field);
  }
  body.set('q', solr.q);
  for (const fq of solr.fq) body.append('fq', fq);
  for (const bq of solr.bq) body.append('bq', bq);
  if (solr.elevateIds !== null) {
    body.set('elevateIds', solr.elevateIds);
    // Without it Solr elevates only under a sort led by the score: under `price asc` the pinned
    // documents, found or not by the query, would sit at their price's place. A profile that
    // names forceElevation itself keeps its choice.
    if (!body.has('forceElevation')) body.set('forceElevation', 'true');
  }
  if (solr.excludeIds !== null) body.set('excludeIds', solr.excludeIds);
  body.set('wt', 'json');
  return { body, dropped: [...dropped] };
}
