// What an evaluation request does: the input in domain terms, the compiled studio (live)
// or a studio compiled from the database (staging preview), and the metrics.
import type { Kysely } from 'kysely';
import { NotFoundError } from '../http/errors.js';
import { stagingRulesOf } from '../rules/evaluated-contents.js';
import type { Database } from '../storage/schema.js';
import { studioExists } from '../studios/service.js';
import { CompiledStudio } from './compiled-studio.js';
import type { Evaluation, EvaluationInput } from './evaluation.js';
import type { EvaluationParts } from './evaluation-parts.js';
import type { EvaluateBody, EvaluateQuery } from './schemas.js';

export class EvaluationService {
  constructor(
    private readonly parts: EvaluationParts,
    private readonly now: () => Date,
  ) {}

  /** The studio's live rules and rewrites on the query, from the compiled index in memory. */
  evaluate(studioId: string, query: EvaluateQuery, rewrites = true): Evaluation {
    const started = performance.now();
    const input = this.inputOf(query);
    const evaluation = this.parts.studio(studioId).evaluate(rewrites ? input : { ...input, rewrites });
    this.parts.metrics.observe(
      evaluation.rules.length > 0 ? 'fired' : 'none',
      (performance.now() - started) / 1000,
    );
    return evaluation;
  }

  /** As `evaluate`, or on the studio's staging content (read from the database) for a preview. */
  async preview(
    db: Kysely<Database>,
    studioId: string,
    body: EvaluateBody,
    rewrites = true,
  ): Promise<Evaluation> {
    if (!body.useStaging) return this.evaluate(studioId, body, rewrites);
    const [rules, stagingRewrites] = await Promise.all([
      stagingRulesOf(db, studioId),
      this.parts.rewrites.staging(db, studioId),
    ]);
    return new CompiledStudio(rules, stagingRewrites).evaluate({ ...this.inputOf(body), rewrites });
  }

  /** The admin preview: a studio's live evaluation, after checking the studio exists. */
  async evaluateForAdmin(db: Kysely<Database>, studioId: string, query: EvaluateQuery): Promise<Evaluation> {
    if (!(await studioExists(db, studioId))) throw new NotFoundError(`no studio ${studioId}`);
    return this.evaluate(studioId, query);
  }

  private inputOf(query: EvaluateQuery): EvaluationInput {
    return {
      q: query.q,
      at: query.at === undefined ? this.now() : new Date(query.at),
      segments: query.segment ?? [],
      queryProfiles: query.queryProfile ?? [],
      filters: (query.filter ?? []).map((filter) => {
        const colon = filter.indexOf(':');
        return { fieldName: filter.slice(0, colon), value: filter.slice(colon + 1) };
      }),
      explain: query.explain ?? false,
    };
  }
}
