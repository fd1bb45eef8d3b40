// What the set-up pages (studios, typeahead instances, search clusters) have in common: the
// list they load from the API, the button that opens the form for a new one, and a new
// object's name and short id (proposed from the name until the merchandiser types their own).
import { useCallback, useEffect, useState } from 'react';
import { type ErrorBody, errorOf } from '../api/client';
import { setQuery } from '../router';
import { described, Field } from './Field';

/**
 * A list read from the API when the page opens and again on `load()`. `read` must be the same
 * function from one render to the next (declare it outside the component).
 */
export function useLoadedList<T>(read: () => Promise<{ data?: T[]; error?: unknown }>) {
  const [items, setItems] = useState<T[]>();
  const [error, setError] = useState<ErrorBody>();
  const load = useCallback(async () => {
    const { data, error } = await read();
    if (data) setItems(data);
    else setError(errorOf(error));
  }, [read]);
  useEffect(() => {
    load();
  }, [load]);
  return { items, error, setError, load };
}

/** The page's toolbar with the button that opens the form for a new one (`?new`). */
export function CreateButton({ label }: { label: string }) {
  return (
    <div className="toolbar">
      <button type="button" className="primary" onClick={() => setQuery({ new: '1', edit: undefined })}>
        {label}
      </button>
    </div>
  );
}

/** A short id from a name, keeping only what `kept` allows: "Shop (English)" → "shop-english". */
export function shortIdFrom(name: string, kept: RegExp, maxLength: number): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(kept, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
}

/** The name people see in the console; the form's first field, so it takes the focus. */
export function NameField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: string;
  onChange: (name: string) => void;
  error?: ErrorBody;
}) {
  return (
    <Field
      id={id}
      label="Name"
      hint="What people see in the console, such as “Shop (English)”."
      error={error}
      field="name"
    >
      <input
        {...described(id, error, 'name')}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        required
        maxLength={200}
        // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field takes the focus
        autoFocus
      />
    </Field>
  );
}

/** A new object's short id, which cannot change once it is created. */
export function ShortIdField({
  id,
  value,
  onChange,
  error,
  hint,
  maxLength,
  pattern,
}: {
  id: string;
  value: string;
  onChange: (shortId: string) => void;
  error?: ErrorBody;
  hint: string;
  maxLength: number;
  pattern: string;
}) {
  return (
    <Field id={id} label="Short id" hint={hint} error={error} field="id">
      <input
        {...described(id, error, 'id')}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        required
        maxLength={maxLength}
        pattern={pattern}
        autoComplete="off"
      />
    </Field>
  );
}
