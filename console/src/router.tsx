// A small router over the History API: the console's state (page, filters, sort, paging)
// lives in the URL under /console, so a view can be reloaded and shared.
import { type AnchorHTMLAttributes, useEffect, useState } from 'react';

export const BASE = '/console';

function current(): URL {
  return new URL(window.location.href);
}

/** Goes to `to`, a path under /console (`/rules?studio=shop`). */
export function navigate(to: string, replace = false): void {
  go(`${BASE}${to}`, replace);
}

function go(url: string, replace: boolean): void {
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The path under /console and the query, following every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [url, setUrl] = useState(current);
  useEffect(() => {
    const onChange = () => setUrl(current());
    window.addEventListener('popstate', onChange);
    return () => window.removeEventListener('popstate', onChange);
  }, []);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : url.pathname;
  return { path, query: url.searchParams };
}

/** Replaces some query parameters of the current URL (empty values removed). */
export function setQuery(changes: Record<string, string | undefined>): void {
  const url = current();
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  go(`${url.pathname}${url.search}`, true);
}

export function Link({ to, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  return (
    <a
      {...rest}
      href={`${BASE}${to}`}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}
