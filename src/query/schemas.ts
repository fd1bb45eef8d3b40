// Query profiles, their keys and the query endpoint on the wire.
import Type, { type Static } from 'typebox';
import { IdString } from '../http/schemas.js';

/** Solr parameter names: letters, digits, `.`, `_`, `-` (no local params, no spaces). */
const PARAM_NAME = '^[A-Za-z][A-Za-z0-9._-]{0,99}$';
const ParamName = Type.String({ pattern: PARAM_NAME, maxLength: 100 });
/** A plain Solr field name, as Solr advises them: letters, digits and `_`, not a digit first. */
const FieldName = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,99}$', maxLength: 100 });
const ParamValue = Type.Union([
  Type.String({ maxLength: 10_000 }),
  Type.Number({ minimum: -1e15, maximum: 1e15 }),
  Type.Boolean(),
  Type.Array(Type.String({ maxLength: 10_000 }), { maxItems: 100 }),
]);

/** The document fields a preview's product cards show; each optional, with the defaults below. */
const Display = Type.Object(
  {
    title: Type.Optional(FieldName),
    image: Type.Optional(FieldName),
    price: Type.Optional(FieldName),
  },
  {
    additionalProperties: false,
    description:
      "The fields the console's product cards show: `title` (default `name`, else `title`, else the id), `image` (an image URL; default `image`, shown when the document has it) and `price` (default `price`)",
    examples: [{ title: 'name', image: 'image_url', price: 'price' }],
  },
);
export type Display = Static<typeof Display>;

/** An origin a shop's pages are served from (`https://shop.example`), or `*` for any. */
const Origin = Type.String({ minLength: 1, maxLength: 512, pattern: '^(\\*|https?://[^\\s/]+)$' });

/** The parameters that carry a shopper's id and session: never sent to Solr, stored as keyed hashes. */
const ShopperParams = Type.Object(
  {
    userParam: Type.Optional({
      ...ParamName,
      description: "The shopper's id (default `user_id`, Fusion's name)",
    }),
    sessionParam: Type.Optional({
      ...ParamName,
      description: "The shopper's session (default `session`, Fusion's name)",
    }),
  },
  {
    additionalProperties: false,
    description:
      'The query parameters naming the shopper and their session, for the response signals: read, hashed, never sent to Solr',
    examples: [{ userParam: 'user_id', sessionParam: 'session' }],
  },
);

const settings = {
  searchCluster: IdString,
  collection: Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9._-]+$' }),
  studio: Type.Optional(IdString),
  typeahead: Type.Optional(IdString),
  defaults: Type.Optional(
    Type.Record(ParamName, ParamValue, {
      maxProperties: 100,
      description: 'Solr parameters every query of the profile sends (rows, fl, qf, defType, …)',
    }),
  ),
  allowedParams: Type.Optional(
    Type.Array(ParamName, {
      maxItems: 100,
      description: "The shopper's parameters passed on to Solr; every other one is dropped",
    }),
  ),
  sortFields: Type.Optional(
    Type.Array(FieldName, {
      maxItems: 100,
      description:
        "The fields a shopper's sort may name (as `field asc|desc` pairs); without it, any plain field name",
    }),
  ),
  returnFields: Type.Optional(
    Type.Array(FieldName, {
      maxItems: 100,
      description: "The fields a shopper's fl may name; without it, any plain field name or `*`",
    }),
  ),
  logSearches: Type.Optional(
    Type.Boolean({ description: "Log the queries into the typeahead instance's search logs" }),
  ),
  timeoutMs: Type.Optional(
    Type.Integer({ minimum: 50, maximum: 60_000, description: 'Per Solr request; default 5000' }),
  ),
  display: Type.Optional(Display),
  allowedOrigins: Type.Optional(
    Type.Array(Origin, {
      maxItems: 100,
      description:
        "Origins whose pages may post signals to the profile's collection with its search-only key (CORS); none by default",
      examples: [['https://shop.example.com']],
    }),
  ),
  signals: Type.Optional(ShopperParams),
  experiment: Type.Optional({
    ...IdString,
    description:
      "The app's experiment the profile runs (one at a time): its variants' params, studio and rewrites switch apply to the shoppers assigned to them while it runs",
  }),
  rewrites: Type.Optional(
    Type.Boolean({ description: "false: the studio's rewrites are not applied (default true)" }),
  ),
};

export const QueryProfileBody = Type.Object(settings, {
  additionalProperties: false,
  $id: 'QueryProfileBody',
});
export type QueryProfileBody = Static<typeof QueryProfileBody>;

export const NewQueryProfileBody = Type.Object(
  { id: IdString, ...settings },
  { additionalProperties: false, $id: 'NewQueryProfileBody' },
);
export type NewQueryProfileBody = Static<typeof NewQueryProfileBody>;

export const QueryProfileSchema = Type.Object(
  {
    id: Type.String(),
    searchCluster: Type.String(),
    collection: Type.String(),
    studio: Type.Optional(Type.String()),
    typeahead: Type.Optional(Type.String()),
    defaults: Type.Record(Type.String(), ParamValue),
    allowedParams: Type.Array(Type.String()),
    sortFields: Type.Optional(Type.Array(Type.String())),
    returnFields: Type.Optional(Type.Array(Type.String())),
    logSearches: Type.Boolean(),
    timeoutMs: Type.Integer(),
    display: Type.Optional(Display),
    allowedOrigins: Type.Array(Type.String()),
    signals: Type.Object({ userParam: Type.String(), sessionParam: Type.String() }),
    experiment: Type.Optional(Type.String()),
    rewrites: Type.Optional(Type.Boolean()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'QueryProfile' },
);
export type QueryProfile = Static<typeof QueryProfileSchema>;

export const ProfileParams = Type.Object({ app: IdString, id: IdString });
export const KeyParams = Type.Object({ app: IdString, id: IdString, keyId: IdString });
export const QueryParams = Type.Object({ app: IdString, profile: IdString });

export const QueryKeySchema = Type.Object({ id: Type.String(), createdAt: Type.String() });
export const NewQueryKeySchema = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'The key, shown this once: send it as `Authorization: Bearer <key>`' }),
  createdAt: Type.String(),
});
export type QueryKey = Static<typeof QueryKeySchema>;
export type NewQueryKey = Static<typeof NewQueryKeySchema>;
