import { type Static, Type } from 'typebox';
import { linkTypes } from './link-types.js';

// No control characters: names end up in logs, URLs and other systems' ids.
const ObjectName = Type.String({ minLength: 1, maxLength: 512, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });
const AnyName = Type.String({ maxLength: 512, description: 'an object name, or * (or absent) for any' });

// Taken in any case (`DEPENDSON`) and checked here once written in camelCase (routes.ts).
const LinkType = Type.Enum(linkTypes, { description: 'the relationship; case-insensitive on input' });
const LinkTypeFilter = Type.Enum([...linkTypes, '*'] as const, {
  description: 'a link type (case-insensitive), or * (or absent) for any',
});

export const LinkSchema = Type.Object(
  {
    subject: ObjectName,
    object: ObjectName,
    linkType: LinkType,
    originator: Type.Optional(Type.String({ maxLength: 512 })),
    createdAt: Type.Optional(Type.String({ description: 'read-only; ignored in requests' })),
  },
  { additionalProperties: false, $id: 'Link' },
);

// Far past any real link graph; bounded so that no number in a query is unbounded.
const MAX_OFFSET = 1_000_000_000;

export const LinkFilterQuery = Type.Object({
  subject: Type.Optional(AnyName),
  object: Type.Optional(AnyName),
  linkType: Type.Optional(LinkTypeFilter),
});

export const ListQuery = Type.Object({
  ...LinkFilterQuery.properties,
  transitive: Type.Boolean({ default: false }),
  limit: Type.Integer({ minimum: 1, maximum: 10000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
});

export const DirectedQuery = Type.Object({
  resource: ObjectName,
  exclusive: Type.Boolean({ default: false }),
  limit: Type.Integer({ minimum: 1, maximum: 10000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
});

export const DeleteQuery = Type.Object({
  subject: ObjectName,
  object: ObjectName,
  linkType: LinkType,
});

export type LinkBody = Static<typeof LinkSchema>;
