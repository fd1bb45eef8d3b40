// Experiments on the wire, in the shape of Fusion's Experiments API (id, description,
// uniqueIdParameter, variants with params/policy and weight, enabled, startTimestamp, metrics),
// with searchdeck's own additions: a variant's studio and rewrites switch, endTimestamp, and the
// record of a promotion.
import Type, { type Static } from 'typebox';
import { IdString } from '../http/schemas.js';

const ParamName = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9._-]{0,99}$', maxLength: 100 });

const PolicySchema = Type.Union([
  Type.Literal('replace'),
  Type.Literal('append'),
  Type.Literal('remove'),
  Type.Literal('default'),
]);
export type Policy = Static<typeof PolicySchema>;

const VariantParam = Type.Object(
  {
    key: ParamName,
    value: Type.String({ maxLength: 10_000, default: '' }),
    policy: {
      ...PolicySchema,
      default: 'replace',
      description:
        "How the value meets the profile's and the shopper's: `replace` their values, `append` one more, `remove` the parameter, `default` set it where none was",
    },
  },
  { additionalProperties: false },
);

const Variant = Type.Object(
  {
    id: IdString,
    name: Type.Optional(Type.String({ maxLength: 200 })),
    params: Type.Optional(
      Type.Array(VariantParam, {
        maxItems: 100,
        description:
          "Solr parameters of the variant, applied over the profile's defaults and the shopper's parameters whatever the profile's allowedParams (never the parameters no one may send)",
      }),
    ),
    weight: Type.Number({
      minimum: 0,
      maximum: 1_000_000,
      description: 'The share of shoppers the variant gets, in proportion to the sum of the weights',
    }),
    studio: Type.Optional({
      ...IdString,
      description: "The studio whose live rules and rewrites the variant uses instead of the profile's",
    }),
    rewrites: Type.Optional(
      Type.Boolean({ description: "false: the studio's rewrites are not applied (default true)" }),
    ),
  },
  { additionalProperties: false },
);
export type Variant = Static<typeof Variant>;

export const METRIC_TYPES = ['ctr', 'conversion-rate', 'no-result-rate'] as const;
const MetricType = Type.Union([
  Type.Literal('ctr'),
  Type.Literal('conversion-rate'),
  Type.Literal('no-result-rate'),
]);

const Metric = Type.Object(
  {
    type: MetricType,
    name: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

const settings = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  uniqueIdParameter: Type.Optional({
    ...ParamName,
    description:
      "The query parameter whose value assigns a shopper to a variant (default the profile's user parameter name, `user_id`)",
  }),
  variants: Type.Array(Variant, {
    minItems: 2,
    maxItems: 20,
    description: 'The first variant is the control',
  }),
  enabled: Type.Optional(Type.Boolean({ description: 'Running (true) or stopped (false, the default)' })),
  startTimestamp: Type.Optional(
    Type.String({ format: 'date-time', description: 'Assignment starts then (default: when enabled)' }),
  ),
  endTimestamp: Type.Optional(
    Type.String({ format: 'date-time', description: 'Assignment ends then: the experiment has ended' }),
  ),
  metrics: Type.Optional(
    Type.Array(Metric, {
      maxItems: 10,
      description: 'The metrics the experiment is judged by (default all three)',
    }),
  ),
};

export const ExperimentBody = Type.Object(settings, {
  additionalProperties: false,
  $id: 'ExperimentBody',
});
export type ExperimentBody = Static<typeof ExperimentBody>;

export const NewExperimentBody = Type.Object(
  { id: IdString, ...settings },
  {
    additionalProperties: false,
    $id: 'NewExperimentBody',
    examples: [
      {
        id: 'names-boost',
        description: 'Boost names harder',
        uniqueIdParameter: 'user_id',
        variants: [
          { id: 'control', name: 'A', weight: 50 },
          {
            id: 'names',
            name: 'B',
            weight: 50,
            params: [{ key: 'qf', value: 'name^5 description', policy: 'replace' }],
          },
        ],
        enabled: true,
      },
    ],
  },
);
export type NewExperimentBody = Static<typeof NewExperimentBody>;

const Promotion = Type.Object({
  variant: Type.String(),
  profile: Type.String(),
  at: Type.String(),
});

export const ExperimentSchema = Type.Object(
  {
    id: Type.String(),
    description: Type.Optional(Type.String()),
    uniqueIdParameter: Type.String(),
    variants: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.Optional(Type.String()),
        params: Type.Array(
          Type.Object({
            key: Type.String(),
            value: Type.String(),
            policy: PolicySchema,
          }),
        ),
        weight: Type.Number(),
        studio: Type.Optional(Type.String()),
        rewrites: Type.Boolean(),
      }),
    ),
    enabled: Type.Boolean(),
    startTimestamp: Type.Optional(Type.String()),
    endTimestamp: Type.Optional(Type.String()),
    metrics: Type.Array(
      Type.Object({
        type: MetricType,
        name: Type.Optional(Type.String()),
      }),
    ),
    promoted: Type.Optional({
      ...Promotion,
      description: 'The variant promoted to its profile, which one, and when',
    }),
    running: Type.Boolean({
      description: 'Enabled, started and not ended: shoppers are assigned to its variants now',
    }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'Experiment' },
);
export type Experiment = Static<typeof ExperimentSchema>;
/** An experiment as stored (what it is apart from the moment it is read). */
export type StoredExperiment = Omit<Experiment, 'running'>;

export const ExperimentParams = Type.Object({ app: IdString, id: IdString });

export const PromoteBody = Type.Object(
  { variant: IdString },
  { additionalProperties: false, $id: 'PromoteBody' },
);

export const PromotionSchema = Type.Object({
  experiment: Type.Unsafe<Experiment>(Type.Ref('Experiment')),
  profile: Type.String({ description: 'The profile whose defaults and studio the variant became' }),
});

/** A rate with its 95 % interval. */
const Rate = Type.Object({
  value: Type.Number({ description: 'A fraction 0–1 of the searches' }),
  low: Type.Number(),
  high: Type.Number(),
});

/** A variant's rate against the control's. */
const Comparison = Type.Object({
  difference: Type.Number({ description: "The variant's rate minus the control's" }),
  low: Type.Number(),
  high: Type.Number(),
  pValue: Type.Number({ description: 'Two-sided, two-proportion z test' }),
  significant: Type.Boolean({ description: 'pValue below 0.05' }),
  sampleSize: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'Searches per variant that would find this difference at 5 % significance with 80 % power; null when there is none',
  }),
});

export type RateName = 'ctr' | 'conversionRate' | 'noResultRate';

const SampleSize = Type.Union([Type.Integer(), Type.Null()]);

export const ExperimentMetricsSchema = Type.Object({
  experiment: Type.String(),
  confidenceLevel: Type.Number({ description: '0.95' }),
  method: Type.String(),
  variants: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.Optional(Type.String()),
      control: Type.Boolean(),
      searches: Type.Integer(),
      shoppers: Type.Integer(),
      ctr: Rate,
      conversionRate: Rate,
      noResultRate: Rate,
      vsControl: Type.Optional(
        Type.Object({ ctr: Comparison, conversionRate: Comparison, noResultRate: Comparison }),
      ),
    }),
  ),
  sampleSize: Type.Object(
    { ctr: SampleSize, conversionRate: SampleSize, noResultRate: SampleSize },
    {
      description:
        "Searches per variant needed to judge every variant's observed difference from the control at 5 % significance with 80 % power (the largest of the variants' sampleSize); null when no difference is seen",
    },
  ),
});
export type ExperimentMetrics = Static<typeof ExperimentMetricsSchema>;
