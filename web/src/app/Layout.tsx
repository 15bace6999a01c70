import { keepPreviousData } from '@tanstack/react-query';
import { Outlet } from '@tanstack/react-router';
import { lazy, Suspense, useEffect } from 'react';
import { ApiError, unwrap } from '../api/client';
import { useApiQuery } from '../api/query';
import { Loading } from '../components/QueryState';
import { takeTokenFromLink } from '../features/auth/token-link';
import { useSession, useSessionStore } from '../session/context';
import { CurrentProvider } from './current';
import { Shell } from './Shell';

const SignInPage = lazy(() => import('../features/auth/pages/SignInPage').then((m) => ({ default: m.SignInPage })));
const NoOrganization = lazy(() => import('./NoOrganization').then((m) => ({ default: m.NoOrganization })));

/** The signed-in part of the app: sign-in when there is no token, else the shell around the page. */
export function Layout() {
  const session = useSessionStore();
  const { token } = useSession();
  useEffect(() => {
    // A token link opened in a tab that already shows the app changes only the fragment.
    const onHash = () => {
      const t = takeTokenFromLink();
      if (t) session.signIn(t);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, [session]);
  if (!token)
    return (
      <Suspense fallback={<Loading />}>
        <SignInPage />
      </Suspense>
    );
  return <SignedIn />;
}

function SignedIn() {
  const store = useSessionStore();
  const { orgId } = useSession();
  const me = useApiQuery(['me'], ({ api, signal }) => unwrap(api.GET('/api/v1/me', { signal })), {
    placeholderData: keepPreviousData,
    retry: (n, e) => !(e instanceof ApiError && e.status === 401) && n < 2,
  });
  const orgs = me.data?.organizations ?? [];
  // The remembered organization if the user still belongs to it, else their first one.
  const pick = me.data ? (orgs.find((o) => o.id === orgId)?.id ?? orgs[0]?.id ?? null) : orgId;
  useEffect(() => {
    if (pick !== orgId) store.setOrg(pick);
  }, [pick, orgId, store]);

  if (me.error && !me.data)
    return (
      <Suspense fallback={<Loading />}>
        <SignInPage
          error={
            me.error instanceof ApiError && me.error.status === 401
              ? 'Your sign-in has ended or the token is not valid: sign in again.'
              : me.error.message
          }
        />
      </Suspense>
    );
  // Pages render only once the session names the right organization, so no request leaves with a stale one.
  if (!me.data || pick !== orgId) return <Loading />;
  const org = orgs.find((o) => o.id === orgId);
  if (!org)
    return (
      <Shell me={me.data} org={null}>
        <Suspense fallback={<Loading />}>
          <NoOrganization />
        </Suspense>
      </Shell>
    );
  const role = org.role ?? 'viewer';
  const value = { me: me.data, org, role, canWrite: role === 'admin' || role === 'editor', isAdmin: role === 'admin' };
  return (
    <CurrentProvider value={value}>
      <Shell me={me.data} org={org}>
        {/* Keyed by organization: a switch resets every page's local state (selections, open panels). */}
        <Outlet key={org.id} />
      </Shell>
    </CurrentProvider>
  );
}
