// An address under /console that is no page of the console: said so, with the way back.
import { BASE, Link } from '../router';

export function NotFoundPage({ path }: { path: string }) {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no console page at <code>{`${BASE}${path}`}</code>. The link may be old, or the address
        mistyped.
      </p>
      <p>
        <Link to="/">Go to Rules, the console's start page</Link>
      </p>
    </>
  );
}
