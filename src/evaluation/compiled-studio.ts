// One studio's live rules and rewrites, compiled: what a query evaluation reads, and all it reads.
import type { LiveRewrite } from '../rewrites/rewrite.js';
import { termKey } from '../text/term-key.js';
import { CompiledRules } from './compiled-rules.js';
import { mergeEffects } from './effect.js';
import type { EvaluatedRule, Evaluation, EvaluationInput } from './evaluation.js';
import { CompiledRewrites } from './rewriting.js';
import { solrParams } from './solr-params.js';

const NO_REWRITES = new CompiledRewrites([]);

export class CompiledStudio {
  readonly #rules: CompiledRules;
  readonly #rewrites: CompiledRewrites;

  /** Compiles the rules and rewrites, or takes them compiled already (see `compileStudio`). */
  constructor(
    rules: readonly EvaluatedRule[] | CompiledRules,
    rewrites: readonly LiveRewrite[] | CompiledRewrites,
  ) {
    this.#rules = rules instanceof CompiledRules ? rules : new CompiledRules(rules);
    this.#rewrites = rewrites instanceof CompiledRewrites ? rewrites : new CompiledRewrites(rewrites);
  }

  /** The compiled rules, which a change of a few rules updates in place (`put`, `remove`). */
  get rules(): CompiledRules {
    return this.#rules;
  }

  get compiledRewrites(): CompiledRewrites {
    return this.#rewrites;
  }

  get ruleCount(): number {
    return this.#rules.count;
  }

  get rewriteCount(): number {
    return this.#rewrites.count;
  }

  /** What the rules and rewrites do to the shopper's query: rewrites first, then the rules on the result. */
  evaluate(input: EvaluationInput): Evaluation {
    // `*:*` is how a browse or category page asks for every document: the empty query.
    const key = isMatchAll(input.q) ? '' : termKey(input.q);
    const rewrites = input.rewrites === false ? NO_REWRITES : this.#rewrites;
    const rewritten = rewrites.apply(key === '' ? [] : key.split(' '), input.at.getTime());
    const fired = this.#rules.matching(rewritten.words, input);
    const { effect, lost, sources } = mergeEffects(fired);
    const evaluation: Evaluation = {
      query: input.q,
      rewrittenQuery: rewritten.words.join(' '),
      rewrites: rewritten.applied,
      rules: fired.map(({ id, content }) => ({
        id,
        name: content.name,
        type: content.type,
        precedence: content.precedence,
      })),
      effect,
      sources,
      solr: solrParams(rewritten, effect),
    };
    if (input.explain) evaluation.explanation = { lost };
    return evaluation;
  }
}

function isMatchAll(q: string): boolean {
  return q.trim() === '*:*';
}

/** Compiles a studio in slices, so a large one does not hold the event loop for all of it. */
export async function compileStudio(
  rules: readonly EvaluatedRule[],
  rewrites: readonly LiveRewrite[] | CompiledRewrites,
  pass: () => Promise<void>,
): Promise<CompiledStudio> {
  const compiled = await CompiledRules.sliced(rules, pass);
  await pass();
  return new CompiledStudio(compiled, rewrites);
}

/** A studio with no live rules or rewrites. */
export const EMPTY_STUDIO = new CompiledStudio([], []);
