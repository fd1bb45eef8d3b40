// Evaluation's shapes on the wire: the shopper's query in, what the rules do to it out.
import Type, { type Static } from 'typebox';
import { errorMessage } from '../http/error-message.js';
import { REWRITE_TYPES } from '../rewrites/rewrite.js';
import { PARAM_POLICIES, RULE_TYPES } from '../rules/rule-content.js';

const MAX_CONTEXT = 100;
const Label = Type.String({ minLength: 1, maxLength: 100 });
const Labels = Type.Array(Label, { maxItems: MAX_CONTEXT });

const parameters = {
  q: Type.String({ maxLength: 1000, description: "The shopper's query." }),
  at: Type.Optional(
    Type.String({ format: 'date-time', description: 'The moment evaluated (ISO 8601); default now.' }),
  ),
  segment: Type.Optional(
    Type.Array(Label, { maxItems: MAX_CONTEXT, description: "The shopper's segments." }),
  ),
  queryProfile: Type.Optional(Labels),
  filter: Type.Optional(
    Type.Array(
      Type.String({
        maxLength: 1000,
        pattern: '^[^:]+:',
        ...errorMessage('must be field:value'),
        description: 'A filter the shopper applied, `field:value`.',
      }),
      { maxItems: MAX_CONTEXT },
    ),
  ),
  explain: Type.Optional(Type.Boolean({ description: 'Say which rule lost a conflict and why.' })),
};

/** `GET /em-rules/evaluate`; list parameters repeat (`segment=a&segment=b`). */
export const EvaluateQuery = Type.Object(parameters, { additionalProperties: false });
export type EvaluateQuery = Static<typeof EvaluateQuery>;

/** `POST /em-rules/evaluate`: the same parameters as JSON, and staging content on request. */
export const EvaluateBody = Type.Object(
  {
    ...parameters,
    useStaging: Type.Optional(
      Type.Boolean({
        description: 'Evaluate the staging content (what publishing everything would make live).',
      }),
    ),
    draftRule: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "With `useStaging`: a rule as an editor has it before saving, in the body's shape of `POST /em-rules` (checked as that is, its problems named under `draftRule.`). It is evaluated in place of the staging rule of its `id`, or beside the staging rules as a new rule whose id in the answer is `draft`.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type EvaluateBody = Static<typeof EvaluateBody>;

const Named = Type.Object({ id: Type.String(), name: Type.String() });
const Weighted = Type.Object({ fieldName: Type.String(), value: Type.String(), weight: Type.Number() });
const Params = Type.Array(
  Type.Object({ key: Type.String(), value: Type.String(), policy: Type.Enum(PARAM_POLICIES) }),
);

export const EvaluationResponse = Type.Object({
  query: Type.String(),
  rewrittenQuery: Type.String(),
  rewrites: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.Enum(REWRITE_TYPES),
      from: Type.String(),
      to: Type.String(),
    }),
  ),
  rules: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      type: Type.Enum(RULE_TYPES),
      precedence: Type.Integer(),
    }),
  ),
  effect: Type.Object({
    blocked: Type.Array(Type.Object({ fieldName: Type.String(), values: Type.Array(Type.String()) })),
    boosts: Type.Array(Weighted),
    buries: Type.Array(Weighted),
    pins: Type.Array(Type.Object({ value: Type.String(), position: Type.Integer() })),
    redirect: Type.Union([Type.String(), Type.Null()]),
    banners: Type.Array(Type.Object({ url: Type.String(), zone: Type.String() })),
    filters: Type.Array(Type.Object({ fieldName: Type.String(), values: Type.Array(Type.String()) })),
    queryBoosts: Type.Array(Type.Object({ query: Type.String(), weight: Type.Number() })),
    params: Params,
    responseValues: Type.Record(Type.String(), Type.Unknown()),
    facets: Type.Union([Type.Array(Type.String()), Type.Null()]),
  }),
  solr: Type.Object({
    q: Type.String(),
    fq: Type.Array(Type.String()),
    bq: Type.Array(Type.String()),
    elevateIds: Type.Union([Type.String(), Type.Null()]),
    excludeIds: Type.Union([Type.String(), Type.Null()]),
    params: Params,
    facetFields: Type.Array(Type.String()),
  }),
  explanation: Type.Optional(
    Type.Object({
      lost: Type.Array(Type.Object({ rule: Named, lost: Type.String(), to: Named, reason: Type.String() })),
    }),
  ),
});
