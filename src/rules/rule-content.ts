// The rule content (what staging and live hold), one schema per type. Limits and
// defaults live here; validation and the wire schemas are derived from these.
import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox';

export const RULE_TYPES = ['blockList', 'boostList', 'buryList', 'pinned', 'redirect', 'banner'] as const;
export const CONTENT_TYPES = ['RULE', 'QUERY_REWRITE'] as const;
/** How a rule's `conditions.queries` match a shopper's query; `is` when not set. */
export const QUERY_MATCH_MODES = ['is', 'contains'] as const;

// Limits the spec leaves open; generous enough for real catalogues, small enough
// that one rule stays well under the 1 MiB body limit and one database row.
const SHORT_TEXT = { minLength: 1, maxLength: 200, pattern: '\\S' };
const VALUE_TEXT = { minLength: 1, maxLength: 500 };
const MAX_LABELS = 100;
const MAX_VALUES = 10_000;

// PostgreSQL `integer` bounds, so precedence fits the column on both engines.
const INT32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };

const Label = Type.String({ minLength: 1, maxLength: 100 });
const Labels = Type.Array(Label, { maxItems: MAX_LABELS, default: [] });

/** An instant in RFC 3339 form (ISO 8601 with a time zone), or null for an open bound. */
export const Instant = Type.Union(
  [Type.String({ format: 'date-time', examples: ['2026-01-15T14:30:00Z'] }), Type.Null()],
  { default: null },
);

export const ConditionFieldValue = Type.Object(
  {
    fieldName: Type.String(SHORT_TEXT),
    values: Type.Array(Type.String(VALUE_TEXT), { minItems: 1, maxItems: MAX_VALUES }),
  },
  { additionalProperties: false },
);

export const Conditions = Type.Object(
  {
    queries: Type.Array(Type.String(SHORT_TEXT), { maxItems: 1000, default: [] }),
    // Optional without a schema default, so that contents stored before the field existed
    // compare equal to the same content sent again; absent means `is`.
    queryMatch: Type.Optional(
      Type.Enum(QUERY_MATCH_MODES, {
        description:
          "How `queries` match a shopper query at evaluation: `is` (the whole query, the default) or `contains` (all of a condition's words appear in it).",
      }),
    ),
    fieldValues: Type.Array(ConditionFieldValue, { maxItems: MAX_LABELS, default: [] }),
    queryProfiles: Labels,
    effectiveStart: Instant,
    effectiveEnd: Instant,
  },
  { additionalProperties: false },
);

/** Fields every type has. */
export const CommonContentFields = {
  name: Type.String(SHORT_TEXT),
  description: Type.String({ maxLength: 2000, default: '' }),
  tags: Labels,
  groups: Labels,
  segments: Labels,
  precedence: Type.Integer({ ...INT32, default: 0, description: 'Higher wins.' }),
  conditions: Conditions,
  deleted: Type.Boolean({ default: false, description: 'Marked for deletion at the next publish.' }),
};

const FieldName = Type.String(SHORT_TEXT);
const FieldValues = Type.Array(Type.String(VALUE_TEXT), { minItems: 1, maxItems: MAX_VALUES });
const Boost = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, default: 10 });
const HttpUrl = Type.String({ format: 'uri', maxLength: 2048, description: 'Absolute http or https URL.' });

export const PinnedValue = Type.Object(
  { value: Type.String(VALUE_TEXT), position: Type.Integer({ minimum: 1, maximum: 10_000 }) },
  { additionalProperties: false },
);

/** The fields of each type, beside the common ones. */
export const TypeFields = {
  blockList: { fieldName: FieldName, fieldValues: FieldValues },
  boostList: { fieldName: FieldName, fieldValues: FieldValues, boost: Boost },
  buryList: { fieldName: FieldName, fieldValues: FieldValues, boost: Boost },
  pinned: {
    fieldName: Type.String({ ...SHORT_TEXT, default: 'id' }),
    pinnedValues: Type.Array(PinnedValue, { minItems: 1, maxItems: 1000 }),
  },
  redirect: { url: HttpUrl },
  banner: { bannerUrl: HttpUrl, zone: Type.String({ ...SHORT_TEXT, default: 'top' }) },
} as const;

function contentOf<const Name extends string, const Fields extends TProperties>(type: Name, fields: Fields) {
  return Type.Object(
    { type: Type.Literal(type), ...CommonContentFields, ...fields },
    { additionalProperties: false },
  );
}

/** The normalised content of each type: every default applied, so every field present. */
export const ContentSchemas = {
  blockList: contentOf('blockList', TypeFields.blockList),
  boostList: contentOf('boostList', TypeFields.boostList),
  buryList: contentOf('buryList', TypeFields.buryList),
  pinned: contentOf('pinned', TypeFields.pinned),
  redirect: contentOf('redirect', TypeFields.redirect),
  banner: contentOf('banner', TypeFields.banner),
};

export type BlockListContent = Static<typeof ContentSchemas.blockList>;
export type BoostListContent = Static<typeof ContentSchemas.boostList>;
export type BuryListContent = Static<typeof ContentSchemas.buryList>;
export type PinnedContent = Static<typeof ContentSchemas.pinned>;
export type RedirectContent = Static<typeof ContentSchemas.redirect>;
export type BannerContent = Static<typeof ContentSchemas.banner>;

/** What clients may leave out: every field with a default. */
function optionalDefaults(properties: TProperties): Record<string, TSchema> {
  const input: Record<string, TSchema> = {};
  for (const [key, schema] of Object.entries(properties)) {
    input[key] = 'default' in schema ? Type.Optional(schema) : schema;
  }
  return input;
}

// `conditions` may be sent partially ({ queries: [...] } alone) or not at all.
const ConditionsInput = Type.Object(optionalDefaults(Conditions.properties), {
  additionalProperties: false,
  default: {},
});

function inputOf(content: TObject): TObject {
  return Type.Object(optionalDefaults({ ...content.properties, conditions: ConditionsInput }), {
    additionalProperties: false,
  });
}

/** The shape a client sends for each type, before defaults. */
export const ContentInputSchemas: Record<(typeof RULE_TYPES)[number], TObject> = {
  blockList: inputOf(ContentSchemas.blockList),
  boostList: inputOf(ContentSchemas.boostList),
  buryList: inputOf(ContentSchemas.buryList),
  pinned: inputOf(ContentSchemas.pinned),
  redirect: inputOf(ContentSchemas.redirect),
  banner: inputOf(ContentSchemas.banner),
};
