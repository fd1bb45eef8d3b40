// The Analytics API on the wire, in Algolia Analytics' vocabulary.
import Type, { type Static } from 'typebox';
import { IdString } from '../http/schemas.js';

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const Rate = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description: 'A fraction from 0 to 1; null when nothing was there to divide by',
});
const Count = Type.Integer({ minimum: 0 });

export const AnalyticsParams = Type.Object({ app: IdString, profile: IdString });

const range = {
  startDate: Type.Optional(
    Type.String({
      pattern: DATE,
      description: 'The first UTC day (YYYY-MM-DD); default: 6 days before endDate',
      examples: ['2026-11-01'],
    }),
  ),
  endDate: Type.Optional(
    Type.String({
      pattern: DATE,
      description: 'The last UTC day, included (YYYY-MM-DD); default: today',
      examples: ['2026-11-07'],
    }),
  ),
};

export const RangeQuery = Type.Object(range, { additionalProperties: false });

export const PagedRangeQuery = Type.Object(
  {
    ...range,
    limit: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 10,
      description: 'Entries per answer (1-1000)',
    }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Entries skipped' }),
  },
  { additionalProperties: false },
);
export type PagedRangeQuery = Static<typeof PagedRangeQuery>;

export const RatesQuery = Type.Object(
  {
    ...range,
    interval: Type.Union([Type.Literal('day'), Type.Literal('hour')], {
      default: 'day',
      description: 'One entry per UTC day, or per hour',
    }),
  },
  { additionalProperties: false },
);
export type RatesQuery = Static<typeof RatesQuery>;

export const TopSearch = Type.Object({
  search: Type.String({ description: 'The search string, normalised as typeahead normalises it' }),
  count: Count,
  nbHits: Count,
  clickCount: Count,
  clickThroughRate: Rate,
  averageClickPosition: Type.Union([Type.Number({ minimum: 1 }), Type.Null()]),
  conversionCount: Count,
  conversionRate: Rate,
  addToCartCount: Count,
  addToCartRate: Rate,
});
export type TopSearch = Static<typeof TopSearch>;

export const TopSearches = Type.Object({ searches: Type.Array(TopSearch) });
export const NoResultSearches = Type.Object({
  searches: Type.Array(Type.Object({ search: Type.String(), count: Count })),
});
export const NoClickSearches = Type.Object({
  searches: Type.Array(Type.Object({ search: Type.String(), count: Count, nbHits: Count })),
});

export const RateEntry = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD, or YYYY-MM-DDTHH:00:00Z by hour' }),
  searchCount: Count,
  noResultRate: Rate,
  clickThroughRate: Rate,
  conversionRate: Rate,
  addToCartRate: Rate,
});
export type RateEntry = Static<typeof RateEntry>;
export const Rates = Type.Object({ dates: Type.Array(RateEntry) });

export const RuleEntry = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], {
    description: "The rule's name in the profile's studio; null when it is not there (any more)",
  }),
  firedCount: Count,
  clickThroughRate: Rate,
  conversionRate: Rate,
  addToCartRate: Rate,
});
export type RuleEntry = Static<typeof RuleEntry>;
export const Rules = Type.Object({ rules: Type.Array(RuleEntry) });

export const DocumentEntry = Type.Object({
  docId: Type.String(),
  clickCount: Count,
  conversionCount: Count,
  addToCartCount: Count,
});
export const Documents = Type.Object({ documents: Type.Array(DocumentEntry) });

export const SearchDetailsQuery = Type.Object(
  {
    ...range,
    search: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'The search string, as the top searches name it (compared as typeahead compares)',
      examples: ['kettle'],
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 10,
      description: 'Rules and documents per answer, each (1-1000)',
    }),
  },
  { additionalProperties: false },
);
export type SearchDetailsQuery = Static<typeof SearchDetailsQuery>;

export const SearchDetails = Type.Object({
  search: Type.String(),
  count: Type.Integer({ minimum: 0, description: 'Its counted searches in the range' }),
  rules: Type.Array(RuleEntry, { description: 'The rules that fired on those searches, most fired first' }),
  documents: Type.Array(DocumentEntry, {
    description: 'The documents clicked, bought or put in a cart after those searches, most clicked first',
  }),
});
export type SearchDetails = Static<typeof SearchDetails>;

export const ErasureQuery = Type.Object(
  {
    user_id: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: "The shopper's id as the shop sent it in its signals and queries",
    }),
  },
  { additionalProperties: false },
);
export const Erasure = Type.Object({
  searches: Count,
  signals: Count,
});
export type Erasure = Static<typeof Erasure>;
