// The paged table of the listings (Rules, Rewrites, History): a real table with header
// cells, a message when the page is empty, and previous/next buttons that move the page
// number kept in the URL.
import type { ReactNode } from 'react';
import { setQuery } from '../router';

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
}

export function PagedTable<T>({ caption, columns, items, row, page, empty }: Props<T>) {
  return (
    <>
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
        <tbody>{items?.map(row)}</tbody>
      </table>
      {items?.length === 0 && <p role="status">{empty}</p>}
      <fieldset className="toolbar">
        <legend className="visually-hidden">Paging</legend>
        <button
          type="button"
          disabled={page.number <= 0}
          onClick={() => setQuery({ page: String(page.number - 1) })}
        >
          Previous page
        </button>
        <span>
          Page {page.totalPages === 0 ? 0 : page.number + 1} of {page.totalPages} ({page.totalElements} in
          all)
        </span>
        <button
          type="button"
          disabled={page.number + 1 >= page.totalPages}
          onClick={() => setQuery({ page: String(page.number + 1) })}
        >
          Next page
        </button>
      </fieldset>
    </>
  );
}
