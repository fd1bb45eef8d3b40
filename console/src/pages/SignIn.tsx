import { type FormEvent, useState } from 'react';
import { type Session, signIn } from '../api/client';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    const answer = await signIn(String(form.get('username')), String(form.get('password')));
    setBusy(false);
    if ('username' in answer) onSignedIn(answer);
    else setError(answer.message ?? 'Sign-in failed');
  }
  return (
    <main className="signin">
      <h1>searchdeck console</h1>
      <form onSubmit={submit} className="card">
        <label>
          Username
          <input name="username" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
