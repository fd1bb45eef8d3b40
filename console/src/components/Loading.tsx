// What a page shows while its data is on the way: a spinner and words saying what is
// loading, never an empty table or "nothing found" that would read as the answer.
import { Loader } from '@mantine/core';

export function Loading({ what }: { what: string }) {
  return (
    <div className="loading" role="status" data-loading>
      <Loader size="sm" aria-hidden="true" />
      <span>Loading {what}…</span>
    </div>
  );
}
