// A shopper's query through a profile: evaluation in process, the Solr request from the
// profile's policy, a live node (round-robin, one retry on another node), Solr's answer with
// the `fusion` object added, and the query counted for the typeahead instance.
import type { Kysely } from 'kysely';
import type { Evaluation } from '../evaluation/evaluation.js';
import type { EvaluationService } from '../evaluation/service.js';
import { assign, runsAt, type ServedVariant } from '../experiments/assignment.js';
import { AppError, ForbiddenError, NotFoundError, ShuttingDownError } from '../http/errors.js';
import { newQueryId } from '../signals/query-id.js';
import type { ResponseSignal } from '../signals/search-signal-batch.js';
import type { Database } from '../storage/schema.js';
import { mayUseStudio, type Principal } from '../users/roles.js';
import { answerPage } from './answer-page.js';
import { LiveNodesTimeout, type QueryParts } from './query-parts.js';
import type { QueryProfile } from './schemas.js';
import type { ServedProfile } from './served-profiles.js';
import { type ShopperIds, takeShopperIds } from './shopper-ids.js';
import type { SolrOutcome } from './solr-client.js';
import { readShopperRequest, type ShopperRequest, shopperFilters, solrRequest } from './solr-request.js';

/**
 * Nodes a query is tried on. A node without a replica of the collection forwards the query to
 * one that has one, and fails while that one stops; the next node in the round may be the one
 * stopping, so a third gets a chance to answer.
 */
const ATTEMPTS = 3;

/** A shopper's query read, its profile found and its rules evaluated: ready for Solr. */
export interface PreparedQuery {
  readonly app: string;
  readonly label: string;
  readonly profile: QueryProfile;
  readonly q: string;
  /** Evaluated on the studio's staging content: a preview, not a shopper's search. */
  readonly staging: boolean;
  readonly evaluation: Evaluation;
  readonly form: string;
  readonly dropped: string[];
  readonly segments: readonly string[];
  /** The shopper's id and session as sent (hashed before anything is stored). */
  readonly shopperIds: ShopperIds;
  /** Made with a search-only key: a shopper's search, counted in analytics. */
  readonly counted: boolean;
  /** The experiment variant the query was assigned to, when the profile's experiment runs. */
  readonly arm?: Arm | undefined;
}

/** An experiment's variant for one query, and the value that assigned it (none: the control, not counted). */
export interface Arm {
  readonly experiment: string;
  readonly variant: ServedVariant;
  readonly unit: string | undefined;
}

/** An answered query: Solr's answer with `fusion` as text, and the query id it carries. */
export interface QueryAnswer {
  readonly body: string;
  readonly queryId: string;
}

/**
 * Who sends a query: a profile's search-only key (`key`), or a signed-in user (Basic
 * credentials or a console session) with their role and studios.
 */
export type QueryCaller = 'key' | Principal;

export class QueryService {
  constructor(
    private readonly parts: QueryParts,
    private readonly evaluation: EvaluationService,
    private readonly db: Kysely<Database>,
  ) {}

  /**
   * Solr's JSON answer with the `fusion` object added, as text. The shopper's parameters are
   * read, the profile found and its studio's live rules and rewrites evaluated (with
   * `staging=true`, its staging content, for a caller who may change it) before anything is
   * sent or counted: 400, 403 and 404 cost Solr nothing.
   */
  async query(
    app: string,
    profileId: string,
    search: URLSearchParams,
    caller: QueryCaller,
  ): Promise<QueryAnswer> {
    const served = this.served(app, profileId);
    const read = takeShopperIds(readShopperRequest(search), served.profile.signals);
    const counted = caller === 'key';
    const rewrites = served.profile.rewrites !== false;
    if (!read.shopper.staging) {
      const { shopper, arm } = this.arm(served, read.shopper, read.ids);
      const variant = arm?.variant;
      const evaluation = this.evaluation.evaluate(
        variant?.studio ?? served.profile.studio ?? '',
        this.context(served, shopper),
        rewrites && variant?.rewrites !== false,
      );
      return this.send(this.prepared(app, served, shopper, evaluation, read.ids, counted, arm));
    }
    // A staging preview is an editor's look at the profile's own studio: no variant applies.
    const { shopper, ids } = read;
    mayPreviewStaging(caller, served.profile);
    const evaluation = await this.evaluation.preview(
      this.db,
      served.profile.studio ?? '',
      { ...this.context(served, shopper), useStaging: served.profile.studio !== undefined },
      rewrites,
    );
    return this.send(this.prepared(app, served, shopper, evaluation, ids, counted));
  }

  /**
   * The variant of the experiment the profile runs, when it runs: from the value of its
   * uniqueIdParameter (taken out of the parameters, never sent to Solr), or the control when
   * the request carries none (then not counted for the experiment).
   */
  private arm(
    served: ServedProfile,
    shopper: ShopperRequest,
    ids: ShopperIds,
  ): { shopper: ShopperRequest; arm?: Arm } {
    const experiment = served.experiment;
    if (experiment === undefined || !runsAt(experiment, this.parts.now().getTime())) return { shopper };
    const name = experiment.uniqueIdParameter;
    const { userParam, sessionParam } = served.profile.signals;
    let unit: string | undefined;
    let rest = shopper;
    if (name === userParam) unit = ids.user;
    else if (name === sessionParam) unit = ids.session;
    else {
      const params = shopper.params.filter(([key]) => key !== name);
      unit = shopper.params.find(([key]) => key === name)?.[1];
      if (params.length !== shopper.params.length) rest = { ...shopper, params };
    }
    return { shopper: rest, arm: { experiment: experiment.id, variant: assign(experiment, unit), unit } };
  }

  // From memory: the node's copy of the profiles follows the database (query-parts).
  private served(app: string, profileId: string): ServedProfile {
    const served = this.parts.served.profile(app, profileId);
    if (!served) throw new NotFoundError(`no query profile ${profileId} in app ${app}`);
    return served;
  }

  private context(served: ServedProfile, shopper: ShopperRequest) {
    return {
      q: shopper.q,
      segment: shopper.segments,
      queryProfile: [served.profile.id],
      filter: shopperFilters(shopper, served.policy),
    };
  }

  private prepared(
    app: string,
    { profile, policy }: ServedProfile,
    shopper: ShopperRequest,
    evaluation: Evaluation,
    shopperIds: ShopperIds,
    counted: boolean,
    arm?: Arm,
  ): PreparedQuery {
    const { body, dropped } = solrRequest(profile, shopper, evaluation, policy, arm?.variant.params);
    return {
      app,
      label: `${app}/${profile.id}`,
      profile,
      q: shopper.q,
      staging: shopper.staging,
      evaluation,
      form: body.toString(),
      dropped,
      segments: shopper.segments,
      shopperIds,
      counted,
      arm,
    };
  }

  /**
   * Sends a prepared query to a live node of its cluster (one retry on another); 502/504 when
   * Solr fails, 504 when the cluster's live nodes are not known within the profile's time-out
   * (ZooKeeper unreachable), 503 when the service stops waiting for Solr at the end of a
   * shutdown's grace.
   */
  async send(prepared: PreparedQuery): Promise<QueryAnswer> {
    const { label, profile, staging, evaluation, form, dropped } = prepared;
    const { metrics } = this.parts;
    // Rules fired for shoppers: a staging preview's are not.
    if (evaluation.rules.length > 0 && !staging)
      metrics.rulesFired.inc({ profile: label }, evaluation.rules.length);
    let nodes: Awaited<ReturnType<QueryParts['nodesOf']>>;
    try {
      // Bounded by the profile's time-out: an unreachable ZooKeeper would otherwise hold the
      // query for the cluster's zkConnectTimeout.
      nodes = await this.parts.nodesOf(profile.searchCluster, profile.timeoutMs);
    } catch (error) {
      if (error instanceof LiveNodesTimeout) {
        metrics.requests.inc({ profile: label, outcome: 'solr-timeout' });
        throw new AppError(
          'solr-timeout',
          `${error.message}: the live Solr nodes of search cluster ${profile.searchCluster} are not known yet`,
          {
            details: {
              cluster: profile.searchCluster,
              ...(error.zooKeeper === undefined ? {} : { zooKeeper: error.zooKeeper }),
            },
          },
        );
      }
      metrics.requests.inc({ profile: label, outcome: 'solr-failed' });
      throw new AppError(
        'solr-failed',
        `cannot find the live Solr nodes of search cluster ${profile.searchCluster}`,
        {
          details: {
            cluster: profile.searchCluster,
            reason: error instanceof Error ? error.message : String(error),
          },
        },
      );
    }
    const live = nodes.nodes.nodes();
    if (live.length === 0) {
      metrics.requests.inc({ profile: label, outcome: 'solr-failed' });
      throw new AppError('solr-failed', `search cluster ${profile.searchCluster} has no live Solr node`, {
        details: { cluster: profile.searchCluster },
      });
    }
    const started = performance.now();
    let failure: { node: string; outcome: Exclude<SolrOutcome, { ok: true }> } | undefined;
    for (let attempt = 0; attempt < Math.min(ATTEMPTS, live.length); attempt++) {
      const node = live[(nodes.start + attempt) % live.length]!;
      const outcome = await this.parts.solr.select(
        node,
        profile.collection,
        form,
        nodes.nodes.credentials,
        profile.timeoutMs,
        this.parts.stopping,
      );
      if (outcome.ok) {
        metrics.solrSeconds.observe({ profile: label }, (performance.now() - started) / 1000);
        metrics.requests.inc({ profile: label, outcome: 'ok' });
        const queryId = newQueryId();
        const page = answerPage(outcome.body);
        this.parts.signals.searchSignals.add(this.responseSignal(prepared, queryId, page));
        // A staging preview is an editor's query, not a shopper's: it teaches typeahead nothing.
        if (profile.logSearches && profile.typeahead !== undefined && !staging)
          this.parts.logs.add(profile.typeahead, prepared.q, page.hits);
        const fusion = {
          ...fusionOf(evaluation, node.name, dropped, staging),
          ...(prepared.arm === undefined
            ? {}
            : { experiment: prepared.arm.experiment, variant: prepared.arm.variant.id }),
          queryId,
        };
        return { body: withFusion(outcome.body, fusion), queryId };
      }
      if (outcome.kind === 'stopped') {
        // Not the node's fault: the service stopped waiting for it at the end of a shutdown's grace.
        metrics.requests.inc({ profile: label, outcome: 'stopped' });
        throw new ShuttingDownError();
      }
      metrics.nodeFailures.inc({ cluster: profile.searchCluster, node: node.name, kind: outcome.kind });
      failure = { node: node.name, outcome };
      // Solr refused the request itself (400): another node would refuse it too. Other refusals
      // may be the node's: a node forwarding to one that is stopping relays its 401 or 503.
      if (outcome.kind === 'refused' && outcome.status === 400) break;
    }
    metrics.solrSeconds.observe({ profile: label }, (performance.now() - started) / 1000);
    const { node, outcome } = failure!;
    if (outcome.kind === 'refused' && outcome.status === 400) {
      // Solr found the request itself wrong (a sort on an unknown field, a bound its type cannot
      // read): what the shopper sent, or the profile's defaults with it, not a failure of Solr.
      metrics.requests.inc({ profile: label, outcome: 'solr-rejected' });
      throw new AppError('solr-rejected', `Solr refused the query: ${outcome.detail}`, {
        details: {
          node,
          cluster: profile.searchCluster,
          collection: profile.collection,
          status: outcome.status,
          solr: outcome.detail,
        },
      });
    }
    const timeout = outcome.kind === 'timeout';
    metrics.requests.inc({ profile: label, outcome: timeout ? 'solr-timeout' : 'solr-failed' });
    const what =
      outcome.kind === 'timeout'
        ? `did not answer within ${profile.timeoutMs} ms`
        : outcome.kind === 'unreachable'
          ? `could not be reached (${outcome.detail})`
          : `answered HTTP ${outcome.status}`;
    throw new AppError(timeout ? 'solr-timeout' : 'solr-failed', `Solr node ${node} ${what}`, {
      details: {
        node,
        cluster: profile.searchCluster,
        collection: profile.collection,
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
        solr: outcome.detail,
      },
    });
  }

  /** What an answered query showed, for its response signal. */
  private responseSignal(
    prepared: PreparedQuery,
    queryId: string,
    page: { hits: number; ids: string[] },
  ): ResponseSignal {
    const { app, profile, q, evaluation, segments, shopperIds, counted, arm } = prepared;
    return {
      queryId,
      app,
      profileId: profile.id,
      collection: profile.collection,
      at: this.parts.now().getTime(),
      query: q,
      rewritten: evaluation.rewrittenQuery,
      hits: page.hits,
      docIds: page.ids,
      ruleIds: evaluation.rules.map((rule) => rule.id),
      segments,
      user: shopperIds.user,
      session: shopperIds.session,
      counted,
      experiment:
        arm?.unit === undefined ? undefined : { id: arm.experiment, variant: arm.variant.id, unit: arm.unit },
    };
  }
}

/**
 * Whether `caller` may ask for the staging content of the profile's studio: a user who may
 * change that studio's rules (an admin, or a merchandiser listing the studio; for a profile
 * without a studio, an admin), never a search-only key. 403 otherwise.
 */
function mayPreviewStaging(caller: QueryCaller, profile: QueryProfile): void {
  if (caller === 'key') {
    throw new ForbiddenError(
      "a search-only key cannot ask for staging=true: the staging preview is for users who may change the profile's studio",
    );
  }
  // No merchandiser lists the empty studio: a profile without one is an admin's to preview.
  if (!mayUseStudio(caller, profile.studio ?? '', 'POST')) {
    const studio = profile.studio === undefined ? 'a profile without a studio' : `studio ${profile.studio}`;
    throw new ForbiddenError(`the role ${caller.role} may not preview the staging content of ${studio}`);
  }
}

/**
 * What each rule did, entry for entry, with the rule's id: the pins, boosts, buries and blocks
 * of the evaluation's effect, so that a preview can say which rule moved which document.
 */
function effectOf({ effect, sources }: Evaluation): object {
  return {
    pins: effect.pins.map((pin, i) => ({ ...pin, rule: sources.pins[i] })),
    boosts: effect.boosts.map((boost, i) => ({ ...boost, rule: sources.boosts[i] })),
    buries: effect.buries.map((bury, i) => ({ ...bury, rule: sources.buries[i] })),
    blocked: effect.blocked.flatMap(({ fieldName, values }, i) =>
      values.map((value, j) => ({ fieldName, value, rule: sources.blocked[i]![j] })),
    ),
    filters: effect.filters.map((filter, i) => ({ ...filter, rule: sources.filters[i] })),
    queryBoosts: effect.queryBoosts.map((boost, i) => ({ ...boost, rule: sources.queryBoosts[i] })),
    params: effect.params.map((param, i) => ({ ...param, rule: sources.params[i] })),
  };
}

/** What the experience layer did, under the name Fusion gives it in its query answers. */
function fusionOf(evaluation: Evaluation, node: string, dropped: string[], staging: boolean): object {
  const { effect } = evaluation;
  return {
    'landing-pages': effect.redirect === null ? [] : [effect.redirect],
    query: evaluation.query,
    rewrittenQuery: evaluation.rewrittenQuery,
    rewrites: evaluation.rewrites,
    rules: evaluation.rules,
    redirect: effect.redirect,
    banners: effect.banners,
    // The storefront's own data (Fusion's response values, Algolia's userData) and the order
    // in which to show the facets (Algolia's facetOrdering); null when no rule sets one.
    responseValues: effect.responseValues,
    facets: effect.facets,
    effect: effectOf(evaluation),
    staging,
    node,
    droppedParams: dropped,
  };
}

/** Solr's answer unchanged, with one more member at the end. */
function withFusion(solrBody: string, fusion: object): string {
  const end = solrBody.lastIndexOf('}');
  const inner = solrBody.slice(0, end).trimEnd();
  const separator = inner.endsWith('{') ? '' : ',';
  return `${inner}${separator}"fusion":${JSON.stringify(fusion)}}`;
}
