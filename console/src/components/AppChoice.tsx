// The form at the top of the pages that work within one app (query profiles, experiments):
// the app typed or picked from the known ones, and the page's own buttons beside it.
import type { ReactNode } from 'react';

export function AppChoice({
  app,
  apps,
  listId,
  show,
  onChoose,
  children,
}: {
  app: string;
  apps: readonly string[];
  /** The id of the known apps' list (unique on the page). */
  listId: string;
  /** The submit button's words, such as "Show profiles". */
  show: string;
  onChoose: (app: string) => void;
  children?: ReactNode;
}) {
  return (
    <form
      className="filters"
      aria-label="Choice of app"
      onSubmit={(event) => {
        event.preventDefault();
        onChoose(String(new FormData(event.currentTarget).get('app') ?? '').trim());
      }}
    >
      <label>
        App
        <input name="app" defaultValue={app} placeholder="shop" key={app} list={listId} />
      </label>
      <datalist id={listId}>
        {apps.map((known) => (
          <option key={known} value={known} />
        ))}
      </datalist>
      <button type="submit">{show}</button>
      {children}
    </form>
  );
}
