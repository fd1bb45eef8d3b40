import { AppShell, Burger, Group } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { currentSession, type Session, signOut } from './api/client';
import { Loading } from './components/Loading';
import { ErrorBoundary } from './ErrorBoundary';
import { ApiClientsPage } from './pages/ApiClients';
import { ClustersPage } from './pages/Clusters';
import { HistoryPage } from './pages/History';
import { NotFoundPage } from './pages/NotFound';
import { QueryProfilesPage } from './pages/QueryProfiles';
import { RulesPage } from './pages/Rules';
import { SignIn } from './pages/SignIn';
import { StudiosPage } from './pages/Studios';
import { UsersPage } from './pages/Users';
import { Link, navigate, useLocation } from './router';

// The graph library is large: the object explorer loads it only when opened.
const ObjectsPage = lazy(() => import('./pages/Objects'));
// The analytics page carries the chart library and the date picker: it loads when opened.
const AnalyticsPage = lazy(() => import('./pages/Analytics'));
// The experiments page loads when opened, like the other pages that follow the shop's figures.
const ExperimentsPage = lazy(() => import('./pages/Experiments'));
// The typeahead page carries the chart library: it loads when opened.
const TypeaheadPage = lazy(() => import('./pages/Typeahead').then((m) => ({ default: m.TypeaheadPage })));

interface PageEntry {
  path: string;
  name: string;
  adminOnly?: boolean;
  /** Whether paths below it are the page's too (a rule's editor: /rules/{id}). */
  nested?: boolean;
  render: (session: Session) => ReactNode;
}

const PAGES: PageEntry[] = [
  { path: '/rules', name: 'Rules', nested: true, render: (s) => <RulesPage session={s} kind="rules" /> },
  {
    path: '/rewrites',
    name: 'Rewrites',
    nested: true,
    render: (s) => <RulesPage session={s} kind="rewrites" />,
  },
  { path: '/analytics', name: 'Analytics', render: () => <AnalyticsPage /> },
  { path: '/experiments', name: 'Experiments', render: (s) => <ExperimentsPage session={s} /> },
  { path: '/studios', name: 'Studios', render: (s) => <StudiosPage session={s} /> },
  { path: '/typeahead', name: 'Typeahead', render: (s) => <TypeaheadPage session={s} /> },
  { path: '/objects', name: 'Objects', render: (s) => <ObjectsPage session={s} /> },
  { path: '/clusters', name: 'Search clusters', render: (s) => <ClustersPage session={s} /> },
  { path: '/query-profiles', name: 'Query profiles', render: (s) => <QueryProfilesPage session={s} /> },
  { path: '/users', name: 'Users', render: (s) => <UsersPage session={s} /> },
  {
    path: '/api-clients',
    name: 'API clients',
    adminOnly: true,
    render: (s) => <ApiClientsPage session={s} />,
  },
  { path: '/history', name: 'History', render: () => <HistoryPage /> },
];

/** The page at `path` (a path under /console), or undefined when there is none. */
function pageAt(path: string): PageEntry | undefined {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return PAGES.find((p) => trimmed === p.path || (p.nested && trimmed.startsWith(`${p.path}/`)));
}

// Below this width the navigation hides behind the burger (the theme's `sm`, 48em).
const NARROW = '(max-width: 47.99em)';

export function App() {
  const [session, setSession] = useState<Session | undefined | null>(null);
  const { path } = useLocation();
  const [navigationOpen, navigation] = useDisclosure(false);
  const narrow = useMediaQuery(NARROW, window.matchMedia(NARROW).matches, { getInitialValueInEffect: false });
  const page = pageAt(path);
  useEffect(() => {
    currentSession()
      .then(setSession)
      .catch(() => setSession(undefined));
  }, []);
  useEffect(() => {
    document.title = `${page ? page.name : path === '/' ? 'Rules' : 'Page not found'} · searchdeck console`;
  }, [page, path]);
  // Going to another page closes the navigation on a narrow screen.
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes on each change of path
  useEffect(() => navigation.close(), [path]);
  // The console's start page is Rules.
  useEffect(() => {
    if (path === '/') navigate('/rules', true);
  }, [path]);

  if (session === null) {
    return (
      <main className="signin">
        <Loading what="the console" />
      </main>
    );
  }
  if (session === undefined) return <SignIn onSignedIn={setSession} />;

  // A hidden navigation (narrow screen, burger closed) is out of reach of the keyboard and of
  // screen readers too, not only out of sight.
  const navigationHidden = narrow && !navigationOpen;
  return (
    <>
      {/* A link to the main content, which takes focus (tabIndex -1) when its fragment is followed. */}
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <AppShell
        header={{ height: 52 }}
        navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !navigationOpen } }}
        padding="md"
      >
        <AppShell.Header className="console-header">
          <Group h="100%" px="md" gap="sm" wrap="nowrap">
            <Burger
              opened={navigationOpen}
              onClick={navigation.toggle}
              hiddenFrom="sm"
              size="sm"
              color="white"
              aria-label="Navigation"
              aria-expanded={navigationOpen}
              aria-controls="main-navigation"
            />
            <span className="brand">
              searchdeck <span className="brand-sub">console</span>
            </span>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar
          id="main-navigation"
          aria-label="Main"
          className="console-navigation"
          data-hidden={navigationHidden || undefined}
          inert={navigationHidden}
          p="sm"
        >
          <ul>
            {PAGES.filter((p) => !p.adminOnly || session.role === 'admin').map((p) => (
              <li key={p.path}>
                <Link to={p.path} aria-current={page === p ? 'page' : undefined}>
                  {p.name}
                </Link>
              </li>
            ))}
          </ul>
          <div className="who">
            <p>
              Signed in as <strong>{session.username}</strong> ({session.role})
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
          </div>
        </AppShell.Navbar>
        <AppShell.Main id="content" tabIndex={-1} className="console-main">
          <ErrorBoundary page={path}>
            <Suspense fallback={<Loading what="the page" />}>
              {page ? page.render(session) : path === '/' ? null : <NotFoundPage path={path} />}
            </Suspense>
          </ErrorBoundary>
        </AppShell.Main>
      </AppShell>
    </>
  );
}
