import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { createQueryClient, setToken } from './api.js';
import { signIn, type Session, type Settings } from './auth.js';
import { FansPage } from './pages/Fans.js';
import { FanPage } from './pages/Fan.js';
import { GamePage } from './pages/Game.js';
import { AuditPage } from './pages/Audit.js';
import { LeaderboardsPage } from './pages/Leaderboards.js';
import { OverviewPage } from './pages/Overview.js';
import { WebhooksPage } from './pages/Webhooks.js';

interface Props {
  settings: Settings;
  initialSession: Session | undefined;
}

/** Where the console is: the part of the URL after `#`, e.g. `#/fans/<id>`. */
function useRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const PAGES = [
  { path: 'overview', title: 'Overview' },
  { path: 'fans', title: 'Fans' },
  { path: 'game', title: 'Game' },
  { path: 'leaderboards', title: 'Leaderboards' },
  { path: 'audit', title: 'Audit' },
  { path: 'webhooks', title: 'Webhooks' },
] as const;

export function App({ settings, initialSession }: Props) {
  const [session, setSession] = useState(initialSession);
  const [forbidden, setForbidden] = useState(false);
  const queryClient = useMemo(() => createQueryClient(() => setForbidden(true)), []);
  setToken(session?.token);
  const route = useRoute();

  if (!settings.authorizeUrl || !settings.tokenUrl) {
    return (
      <main className="centered">
        <h1>Operator's console</h1>
        <p>
          Sign-in is not configured: set CONSOLE_AUTHORIZE_URL and CONSOLE_TOKEN_URL
          (docs/OPERATIONS.md, The console).
        </p>
      </main>
    );
  }
  if (!session) {
    return (
      <main className="centered">
        <h1>Operator's console</h1>
        <p>Sign in with an operator's account (the admin scope) to run the game.</p>
        <button type="button" onClick={() => void signIn(settings)}>
          Sign in
        </button>
      </main>
    );
  }
  const signOut = () => {
    queryClient.clear();
    setToken(undefined);
    setForbidden(false);
    setSession(undefined);
  };
  if (forbidden || !session.scopes.includes('admin')) {
    return (
      <main className="centered" data-page="not-operator">
        <h1>Not an operator</h1>
        <p>
          You are signed in as <strong>{session.who}</strong>, whose token has no admin scope. The
          console shows operators only; it shows this account nothing.
        </p>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </main>
    );
  }

  const [page = 'fans', ...rest] = route;
  return (
    <QueryClientProvider client={queryClient}>
      <header className="bar">
        <span className="brand">Operator's console</span>
        <nav aria-label="Pages">
          {PAGES.map(({ path, title }) => (
            <a key={path} href={`#/${path}`} aria-current={page === path ? 'page' : undefined}>
              {title}
            </a>
          ))}
        </nav>
        <span className="who">
          {session.who}{' '}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main>
        {page === 'overview' ? (
          <OverviewPage />
        ) : page === 'game' ? (
          <GamePage />
        ) : page === 'leaderboards' ? (
          <LeaderboardsPage />
        ) : page === 'audit' ? (
          <AuditPage />
        ) : page === 'webhooks' ? (
          <WebhooksPage />
        ) : rest[0] ? (
          <FanPage userId={rest[0]} />
        ) : (
          <FansPage />
        )}
      </main>
    </QueryClientProvider>
  );
}
