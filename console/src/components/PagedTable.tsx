// The paged table of the listings (Rules, Rewrites, History): a real table with header
// cells, a loader while the page is on the way (never an empty table or "Page 0 of 0"), a
// message when the page is empty, and previous/next buttons that move the page number kept
// in the URL.
import type { ReactNode } from 'react';
import { setQuery } from '../router';
import { Loading } from './Loading';
import { TableScroll } from './TableScroll';

/** The page part of a paged answer of the API. */
export interface PageInfo {
  number: number;
  totalPages: number;
  totalElements: number;
}

export const NO_PAGE: PageInfo = { number: 0, totalPages: 0, totalElements: 0 };

interface Props<T> {
  /** Read by screen readers: what the table lists. */
  caption: string;
  /** The header cells, in order (a node for a header that is only for screen readers). */
  columns: ReactNode[];
  /** The page's items; undefined while loading. */
  items: T[] | undefined;
  /** One `<tr>` per item, with a `key`. */
  row: (item: T) => ReactNode;
  page: PageInfo;
  /** Said when the page has no item. */
  empty: string;
  /** What is loading, said by the loader ("rules"). */
  what: string;
  /** How many there are in words ("1 rule", "3 rules"). */
  count: (n: number) => string;
}

export function PagedTable<T>({ caption, columns, items, row, page, empty, what, count }: Props<T>) {
  if (items === undefined) return <Loading what={what} />;
  return (
    <>
      <TableScroll label={caption}>
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for a table
                <th scope="col" key={i}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{items.map(row)}</tbody>
        </table>
      </TableScroll>
      {items.length === 0 && <p role="status">{empty}</p>}
      {items.length > 0 && page.totalPages <= 1 && <p className="count">{count(page.totalElements)}</p>}
      {page.totalPages > 1 && (
        <fieldset className="toolbar paging">
          <legend className="visually-hidden">Paging</legend>
          <button
            type="button"
            disabled={page.number <= 0}
            onClick={() => setQuery({ page: String(page.number - 1) })}
          >
            Previous page
          </button>
          <span>
            Page {page.number + 1} of {page.totalPages} ({count(page.totalElements)} in all)
          </span>
          <button
            type="button"
            disabled={page.number + 1 >= page.totalPages}
            onClick={() => setQuery({ page: String(page.number + 1) })}
          >
            Next page
          </button>
        </fieldset>
      )}
    </>
  );
}
