// The rule content (what staging and live hold), one schema per type. Limits and
// defaults live here; validation and the wire schemas are derived from these.
import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox';

export const RULE_TYPES = [
  'blockList',
  'boostList',
  'buryList',
  'pinned',
  'redirect',
  'banner',
  'filterList',
  'boostAttributes',
  'setParams',
  'responseValue',
  'setFacetList',
] as const;
export const CONTENT_TYPES = ['RULE', 'QUERY_REWRITE'] as const;
/** How a rule's `conditions.queries` match a shopper's query; `is` when not set. */
export const QUERY_MATCH_MODES = ['is', 'contains', 'startsWith', 'empty'] as const;
/** What a `setParams` entry does to the parameter of its key (Fusion's set-params policies). */
export const PARAM_POLICIES = ['replace', 'append', 'default', 'remove'] as const;
/** The most bytes a `responseValue` rule's pairs take, as JSON, all together. */
export const MAX_RESPONSE_VALUES_BYTES = 1024;

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
          "How `queries` match a shopper query at evaluation: `is` (the whole query, the default), `contains` (all of a condition's words appear in it), `startsWith` (the query's first words are the condition's) or `empty` (no `queries`: the rule fires on the empty query and on `*:*`, browse and category pages).",
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

/** A boost or bury of the documents with a field's value, or matching a filter query, by a weight. */
export const AttributeBoost = Type.Object(
  {
    fieldName: Type.Optional(FieldName),
    value: Type.Optional(Type.String(VALUE_TEXT)),
    query: Type.Optional(
      Type.String({
        ...VALUE_TEXT,
        description:
          'Instead of fieldName and value: one filter, `field:value`, `field:"a phrase"`, `field:[a TO b]` or `field:(a OR b)`.',
      }),
    ),
    weight: Type.Number({
      minimum: -1_000_000,
      maximum: 1_000_000,
      description: "Above 0 boosts, below 0 buries (by the weight's size); never 0.",
    }),
  },
  { additionalProperties: false },
);

/** A Solr parameter a rule sets, with Fusion's policy. */
export const SetParam = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_.]*$' }),
    value: Type.String({ maxLength: 1000, default: '' }),
    policy: Type.Enum(PARAM_POLICIES, { default: 'replace' }),
  },
  { additionalProperties: false },
);

/** A key and its value (any JSON) returned to the storefront. */
export const ResponseValuePair = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 100 }), value: Type.Unknown() },
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
  filterList: { fieldName: FieldName, fieldValues: FieldValues },
  boostAttributes: { boosts: Type.Array(AttributeBoost, { minItems: 1, maxItems: 100 }) },
  setParams: { params: Type.Array(SetParam, { minItems: 1, maxItems: 100 }) },
  responseValue: { responseValues: Type.Array(ResponseValuePair, { minItems: 1, maxItems: 100 }) },
  setFacetList: {
    facetFields: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 }),
  },
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
  filterList: contentOf('filterList', TypeFields.filterList),
  boostAttributes: contentOf('boostAttributes', TypeFields.boostAttributes),
  setParams: contentOf('setParams', TypeFields.setParams),
  responseValue: contentOf('responseValue', TypeFields.responseValue),
  setFacetList: contentOf('setFacetList', TypeFields.setFacetList),
};

export type BlockListContent = Static<typeof ContentSchemas.blockList>;
export type BoostListContent = Static<typeof ContentSchemas.boostList>;
export type BuryListContent = Static<typeof ContentSchemas.buryList>;
export type PinnedContent = Static<typeof ContentSchemas.pinned>;
export type RedirectContent = Static<typeof ContentSchemas.redirect>;
export type BannerContent = Static<typeof ContentSchemas.banner>;
export type FilterListContent = Static<typeof ContentSchemas.filterList>;
export type BoostAttributesContent = Static<typeof ContentSchemas.boostAttributes>;
export type SetParamsContent = Static<typeof ContentSchemas.setParams>;
export type ResponseValueContent = Static<typeof ContentSchemas.responseValue>;
export type SetFacetListContent = Static<typeof ContentSchemas.setFacetList>;

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

// A list of entries with defaults of their own (a `setParams` entry's policy) takes them
// left out too.
function entriesInput(properties: TProperties): TProperties {
  const input: TProperties = {};
  for (const [key, schema] of Object.entries(properties)) {
    const items = (schema as { items?: TSchema }).items;
    const entry = items !== undefined && Type.IsObject(items) ? items : undefined;
    if (!Type.IsArray(schema) || entry === undefined) {
      input[key] = schema;
      continue;
    }
    const { minItems, maxItems } = schema as { minItems?: number; maxItems?: number };
    const bounds: { minItems?: number; maxItems?: number } = {};
    if (minItems !== undefined) bounds.minItems = minItems;
    if (maxItems !== undefined) bounds.maxItems = maxItems;
    input[key] = Type.Array(
      Type.Object(optionalDefaults(entry.properties), { additionalProperties: false }),
      bounds,
    );
  }
  return input;
}

function inputOf(content: TObject): TObject {
  return Type.Object(optionalDefaults({ ...entriesInput(content.properties), conditions: ConditionsInput }), {
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
  filterList: inputOf(ContentSchemas.filterList),
  boostAttributes: inputOf(ContentSchemas.boostAttributes),
  setParams: inputOf(ContentSchemas.setParams),
  responseValue: inputOf(ContentSchemas.responseValue),
  setFacetList: inputOf(ContentSchemas.setFacetList),
};
