import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { currentSession, type Session, signOut } from './api/client';
import { ErrorBoundary } from './ErrorBoundary';
import { ApiClientsPage } from './pages/ApiClients';
import { ClustersPage } from './pages/Clusters';
import { HistoryPage } from './pages/History';
import { QueryProfilesPage } from './pages/QueryProfiles';
import { RulesPage } from './pages/Rules';
import { SignIn } from './pages/SignIn';
import { UsersPage } from './pages/Users';
import { Link, navigate, useLocation } from './router';

// The graph library is large: the object explorer loads it only when opened.
const ObjectsPage = lazy(() => import('./pages/Objects'));
// The typeahead page carries the chart library: it loads when opened.
const TypeaheadPage = lazy(() => import('./pages/Typeahead').then((m) => ({ default: m.TypeaheadPage })));

const PAGES: { path: string; name: string; adminOnly?: boolean }[] = [
  { path: '/rules', name: 'Rules' },
  { path: '/rewrites', name: 'Rewrites' },
  { path: '/typeahead', name: 'Typeahead' },
  { path: '/objects', name: 'Objects' },
  { path: '/clusters', name: 'Search clusters' },
  { path: '/query-profiles', name: 'Query profiles' },
  { path: '/users', name: 'Users' },
  { path: '/api-clients', name: 'API clients', adminOnly: true },
  { path: '/history', name: 'History' },
];

export function App() {
  const [session, setSession] = useState<Session | undefined | null>(null);
  const { path } = useLocation();
  useEffect(() => {
    currentSession()
      .then(setSession)
      .catch(() => setSession(undefined));
  }, []);
  useEffect(() => {
    const page = PAGES.find((p) => path.startsWith(p.path));
    document.title = `${page ? `${page.name} · ` : ''}searchdeck console`;
  }, [path]);

  if (session === null) return <p>Loading…</p>;
  if (session === undefined) return <SignIn onSignedIn={setSession} />;

  let page: ReactNode;
  if (path.startsWith('/rules')) page = <RulesPage session={session} kind="rules" />;
  else if (path.startsWith('/rewrites')) page = <RulesPage session={session} kind="rewrites" />;
  else if (path.startsWith('/typeahead')) page = <TypeaheadPage session={session} />;
  else if (path.startsWith('/objects')) page = <ObjectsPage session={session} />;
  else if (path.startsWith('/clusters')) page = <ClustersPage session={session} />;
  else if (path.startsWith('/query-profiles')) page = <QueryProfilesPage session={session} />;
  else if (path.startsWith('/users')) page = <UsersPage session={session} />;
  else if (path.startsWith('/api-clients')) page = <ApiClientsPage session={session} />;
  else if (path.startsWith('/history')) page = <HistoryPage />;
  else {
    navigate('/rules', true);
    page = null;
  }

  return (
    <div className="layout">
      <nav className="main" aria-label="Main">
        <strong>searchdeck</strong>
        <ul>
          {PAGES.filter((p) => !p.adminOnly || session.role === 'admin').map((p) => (
            <li key={p.path}>
              <Link to={p.path} aria-current={path.startsWith(p.path) ? 'page' : undefined}>
                {p.name}
              </Link>
            </li>
          ))}
        </ul>
        <p className="who">
          Signed in as {session.username} ({session.role})
        </p>
        <button
          type="button"
          onClick={async () => {
            await signOut();
            setSession(undefined);
          }}
        >
          Sign out
        </button>
      </nav>
      <main>
        <ErrorBoundary page={path}>
          <Suspense fallback={<p>Loading…</p>}>{page}</Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
