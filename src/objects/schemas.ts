// The Objects document on the wire: what an export answers and an import takes, and the
// report of an import. One schema for both directions, so an export always imports.
import { type Static, Type } from 'typebox';
import { NewSearchClusterBody } from '../clusters/schemas.js';
import { IdString } from '../http/schemas.js';
import { LinkSchema } from '../links/schemas.js';
import { SCOPES } from '../oauth/scopes.js';
import { QueryProfileBody } from '../query/schemas.js';
import { ContentTypeSchema, PublishStateSchema } from '../rules/schemas.js';
import { TransferredInstanceSchema } from '../typeahead/schemas.js';

/** The document format this build writes and reads. */
export const DOCUMENT_VERSION = 1;

const Instant = Type.String({ format: 'date-time', maxLength: 64 });
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Nullable = <T extends ReturnType<typeof Text>>(schema: T) => Type.Union([schema, Type.Null()]);

// The fields of the create body, without its `$id` (that schema is registered once, by its area).
export const ClusterItem = Type.Object(NewSearchClusterBody.properties, { additionalProperties: false });

export const ClientItem = Type.Object(
  { clientId: Text(200), name: Text(200), scopes: Type.Array(Type.Enum(SCOPES), { minItems: 1 }) },
  { additionalProperties: false },
);

export const StudioItem = Type.Object(
  {
    id: IdString,
    name: Text(200),
    syncTargets: Type.Array(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }), {
      maxItems: 20,
    }),
    clients: Type.Array(ClientItem, { maxItems: 1000 }),
  },
  { additionalProperties: false },
);

const Content = Type.Object(
  {},
  { additionalProperties: true, description: 'a rule content, as the Rules API answers it' },
);

export const RuleItem = Type.Object(
  {
    id: Text(200),
    studioId: IdString,
    externalId: Nullable(Text(200)),
    contentType: ContentTypeSchema,
    migratedId: Nullable(Text(200)),
    staging: Content,
    live: Type.Union([Content, Type.Null()]),
    publishState: Type.Optional(PublishStateSchema),
    createdBy: Text(512),
    creationDate: Instant,
    lastModifiedBy: Text(512),
    lastModified: Instant,
  },
  { additionalProperties: false },
);

// A query profile: its app, its id and the settings of its PUT body; never its keys.
export const QueryProfileItem = Type.Object(
  { app: IdString, id: IdString, ...QueryProfileBody.properties },
  { additionalProperties: false },
);

const { createdAt: _createdAt, ...linkFields } = LinkSchema.properties;
export const LinkItem = Type.Object(linkFields, { additionalProperties: false });

export const RewriteItem = Type.Object(
  {
    id: Text(200),
    studioId: IdString,
    type: Text(50),
    staging: Type.Object({}, { additionalProperties: true, description: 'a rewrite content, as stored' }),
    live: Type.Union([
      Type.Object({}, { additionalProperties: true, description: 'a rewrite content, as stored' }),
      Type.Null(),
    ]),
    publishState: Type.Optional(PublishStateSchema),
    createdBy: Text(512),
    creationDate: Instant,
    lastModifiedBy: Text(512),
    lastModified: Instant,
  },
  { additionalProperties: false },
);

export const ObjectsSchema = Type.Object(
  {
    searchClusters: Type.Array(ClusterItem),
    queryProfiles: Type.Array(QueryProfileItem),
    studios: Type.Array(StudioItem),
    rules: Type.Array(RuleItem),
    rewrites: Type.Array(RewriteItem),
    typeaheadInstances: Type.Array(TransferredInstanceSchema),
    links: Type.Array(LinkItem),
  },
  { additionalProperties: false },
);

export const MetadataSchema = Type.Object(
  {
    exportedAt: Instant,
    version: Type.Literal(DOCUMENT_VERSION),
    secretsOmitted: Type.Array(Type.String({ maxLength: 4096 })),
    app: Type.Optional(IdString),
  },
  { additionalProperties: false },
);

export const DocumentSchema = Type.Object(
  { metadata: MetadataSchema, objects: ObjectsSchema },
  { additionalProperties: false, $id: 'ObjectsDocument' },
);

export const OBJECT_TYPES = ['search-cluster', 'studio', 'typeahead', 'query-profile'] as const;

// An id, or for a query profile `{app}/{id}` (profiles are named within their app).
const ExportId = Type.String({
  minLength: 1,
  maxLength: 257,
  pattern: '^(?!\\.{1,2}(/|$))[A-Za-z0-9._-]+(/(?!\\.{1,2}$)[A-Za-z0-9._-]+)?$',
});

export const ExportQuery = Type.Object({
  app: Type.Optional(IdString),
  type: Type.Optional(Type.Array(Type.Enum(OBJECT_TYPES), { maxItems: 1000 })),
  id: Type.Optional(Type.Array(ExportId, { maxItems: 1000 })),
});

export const POLICIES = ['abort', 'merge', 'overwrite'] as const;

export const ImportQuery = Type.Object({
  policy: Type.Enum(POLICIES, { default: 'abort' }),
  dryRun: Type.Boolean({ default: false }),
});

const Names = Type.Array(Type.String());

export const ImportReportSchema = Type.Object(
  {
    dryRun: Type.Boolean(),
    policy: Type.Enum(POLICIES),
    counts: Type.Object({ created: Type.Integer(), updated: Type.Integer(), leftAlone: Type.Integer() }),
    created: Names,
    updated: Names,
    leftAlone: Names,
    namesTruncated: Type.Boolean({ description: 'true when a list names only its first 1000' }),
    needsSecret: Type.Array(
      Type.Object({ object: Type.String(), secret: Type.String(), how: Type.String() }),
    ),
    secretsIssued: Type.Array(
      Type.Object({ object: Type.String(), secret: Type.String(), value: Type.String() }),
      { description: 'new secrets of imported API clients and sync targets, shown only here' },
    ),
  },
  { $id: 'ObjectsImportReport' },
);

export type ObjectsDocument = Static<typeof DocumentSchema>;
export type Objects = Static<typeof ObjectsSchema>;
export type ImportReport = Static<typeof ImportReportSchema>;
export type Policy = (typeof POLICIES)[number];
export type ObjectType = (typeof OBJECT_TYPES)[number];
