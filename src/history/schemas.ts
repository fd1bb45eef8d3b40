// Request and answer shapes of the History API.
import { type Static, Type } from 'typebox';
import { errorMessage } from '../http/error-message.js';
import { sharedRef } from '../http/schemas.js';
import { PageNumber, PageSchema, PageSize } from '../listing/page.js';

const Name = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 256,
    ...errorMessage(`${what} must be 1 to 256 characters`),
  });

const Json = Type.Unknown({ description: 'Any JSON value; secrets are never recorded.' });

export const HistoryEventSchema = Type.Object(
  {
    id: Type.String(),
    at: Type.String({ format: 'date-time' }),
    actor: Type.String({ description: '"admin", "user:<name>", "client:<name>" or "system"' }),
    action: Type.String(),
    object: Type.String({ description: 'What changed: "rule:<id>", "typeahead:<id>", …' }),
    summary: Type.String(),
    before: Type.Optional(Json),
    after: Type.Optional(Json),
    data: Type.Optional(Json),
  },
  { $id: 'HistoryEvent' },
);
export type HistoryEvent = Static<typeof HistoryEventSchema>;

export const HistoryEventCreate = Type.Object(
  {
    object: Name('object'),
    action: Name('action'),
    summary: Type.String({ minLength: 1, maxLength: 2000, ...errorMessage('must be 1 to 2000 characters') }),
    data: Type.Optional(Json),
  },
  { additionalProperties: false },
);
export type HistoryEventCreateType = Static<typeof HistoryEventCreate>;

const Instant = Type.String({
  format: 'date-time',
  maxLength: 64,
  ...errorMessage('must be an ISO 8601 date-time (2026-01-15T14:30:00Z)'),
});

export const HistoryQuery = Type.Object({
  object: Type.Optional(Name('object')),
  actor: Type.Optional(Name('actor')),
  action: Type.Optional(Name('action')),
  from: Type.Optional({ ...Instant, description: 'Events at or after this instant.' }),
  to: Type.Optional({ ...Instant, description: 'Events before this instant.' }),
  page: PageNumber,
  size: PageSize,
});
export type HistoryQueryType = Static<typeof HistoryQuery>;

export const HistoryPage = PageSchema(sharedRef(HistoryEventSchema));

export const HistoryIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
