// The paging envelope every listing answers: one page of items and the totals.
import Type, { type TSchema } from 'typebox';
import { errorMessage } from '../http/error-message.js';

export interface Page<Item> {
  content: Item[];
  page: { size: number; number: number; totalElements: number; totalPages: number };
}

/** The envelope of one page of `size` items, page `number` (zero-based), of `total` in all. */
export function pageOf<Item>(content: Item[], number: number, size: number, total: number): Page<Item> {
  return { content, page: { size, number, totalElements: total, totalPages: Math.ceil(total / size) } };
}

/** The envelope's schema for items of `item`. */
export function PageSchema<Item extends TSchema>(item: Item) {
  return Type.Object({
    content: Type.Array(item),
    page: Type.Object({
      size: Type.Integer(),
      number: Type.Integer(),
      totalElements: Type.Integer(),
      totalPages: Type.Integer(),
    }),
  });
}

// A page number of at most nine digits, as the listing always took.
export const MAX_PAGE = 999_999_999;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 20;

/** `page`: zero-based. */
export const PageNumber = Type.Integer({
  minimum: 0,
  maximum: MAX_PAGE,
  default: 0,
  description: 'Zero-based.',
  ...errorMessage('must be an integer ≥ 0'),
});

/** `size`: items per page. */
export const PageSize = Type.Integer({
  minimum: 1,
  maximum: MAX_PAGE_SIZE,
  default: DEFAULT_PAGE_SIZE,
  ...errorMessage(`must be an integer from 1 to ${MAX_PAGE_SIZE}`),
});
