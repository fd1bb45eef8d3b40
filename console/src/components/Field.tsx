// One field of a set-up form: its label in the merchandiser's words, a one-line explanation
// under it, and the API's message for it when it refused the form. The control itself is the
// caller's; `described(id)` gives it the ids of the explanation and the message.
import type { ReactNode } from 'react';
import { type ErrorBody, messageFor } from '../api/client';

/** The attributes that tie a control to its explanation and message. */
export function described(id: string, error?: ErrorBody, field?: string) {
  const message = field ? messageFor(error, field) : undefined;
  return {
    id,
    'aria-describedby': message ? `${id}-hint ${id}-error` : `${id}-hint`,
    'aria-invalid': message !== undefined || undefined,
  };
}

export function Field({
  id,
  label,
  hint,
  error,
  field,
  children,
}: {
  id: string;
  label: string;
  hint: ReactNode;
  error?: ErrorBody;
  /** The API's name of the field, to find its message in the error body. */
  field?: string;
  children: ReactNode;
}) {
  const message = field ? messageFor(error, field) : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {message && (
        <p className="field-error" id={`${id}-error`}>
          {message}
        </p>
      )}
    </div>
  );
}

/** The refusal in words: the API's message, or the fields' messages when it gave some. */
export function FormError({ error, fields = {} }: { error?: ErrorBody; fields?: Record<string, string> }) {
  if (!error) return null;
  const named = error.errors?.map((e) => {
    const label = Object.entries(fields).find(([name]) => e.field === name || e.field.startsWith(`${name}.`));
    return `${label ? label[1] : e.field}: ${e.message}`;
  });
  return (
    <p className="error" role="alert">
      {named?.length ? named.join('; ') : error.message}
    </p>
  );
}
