import { type Static, Type } from 'typebox';
import { withExamples } from '../http/schemas.js';
import { linkTypes } from './link-types.js';

// No control characters: names end up in logs, URLs and other systems' ids.
// Examples from the README: a web parser that depends on its data source.
const objectName = (example: string) =>
  Type.String({ minLength: 1, maxLength: 512, pattern: '^[^\\u0000-\\u001f\\u007f]+$', examples: [example] });
const anyName = (example: string) =>
  Type.String({
    maxLength: 512,
    description: 'an object name, or * (or absent) for any',
    examples: [example],
  });

// Taken in any case (`DEPENDSON`) and checked here once written in camelCase (routes.ts).
const LinkType = Type.Enum(linkTypes, { description: 'the relationship; case-insensitive on input' });
const LinkTypeFilter = Type.Enum([...linkTypes, '*'] as const, {
  description: 'a link type (case-insensitive), or * (or absent) for any',
});

export const LinkSchema = Type.Object(
  {
    subject: objectName('datasource:web'),
    object: objectName('parser:web'),
    linkType: LinkType,
    originator: Type.Optional(Type.String({ maxLength: 512 })),
    createdAt: Type.Optional(Type.String({ description: 'read-only; ignored in requests' })),
  },
  {
    additionalProperties: false,
    $id: 'Link',
    examples: [{ subject: 'datasource:web', object: 'parser:web', linkType: 'dependsOn' }],
  },
);

// Far past any real link graph; bounded so that no number in a query is unbounded.
const MAX_OFFSET = 1_000_000_000;

export const LinkFilterQuery = Type.Object({
  subject: Type.Optional(anyName('parser:web')),
  object: Type.Optional(anyName('datasource:web')),
  linkType: Type.Optional(withExamples(LinkTypeFilter, 'supports')),
});

export const ListQuery = Type.Object({
  ...LinkFilterQuery.properties,
  transitive: Type.Boolean({ default: false }),
  limit: Type.Integer({ minimum: 1, maximum: 10000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
});

export const DirectedQuery = Type.Object({
  resource: objectName('datasource:web'),
  exclusive: Type.Boolean({ default: false }),
  limit: Type.Integer({ minimum: 1, maximum: 10000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
});

export const DeleteQuery = Type.Object({
  subject: objectName('datasource:web'),
  object: objectName('parser:web'),
  linkType: withExamples(LinkType, 'dependsOn'),
});

export type LinkBody = Static<typeof LinkSchema>;
