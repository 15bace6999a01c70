import { useEffect, useState } from 'react';
import { get, setSession } from './api';
import { finishOidc, saveToken, signOut, startOidc, storedToken, type UiConfig } from './auth';
import { LISTS, ListPage } from './pages/Lists';
import { Overview } from './pages/Overview';
import { RequestDetail, Requests } from './pages/Requests';
import { Settings } from './pages/Settings';
import { TraceDetail, Traces } from './pages/Traces';
import { Webhooks } from './pages/Webhooks';
import { Annotation, Playground } from './pages/Work';
import { DatasetDetail, PromptDetail, SessionDetail, UserDetail, Users } from './pages/Details';
import { Alerts, Experiments } from './pages/Rules';
import { Shared } from './pages/Shared';
import { navigate, useLocation } from './router';

const NAV: [string, string][] = [
  ['/', 'Overview'], ['/requests', 'Requests'], ['/traces', 'Traces'], ['/sessions', 'Sessions'], ['/users', 'Users'], ['/prompts', 'Prompts'], ['/playground', 'Playground'],
  ['/evaluators', 'Evaluators'], ['/eval-runs', 'Eval runs'], ['/datasets', 'Datasets'], ['/experiments', 'Experiments'], ['/annotation', 'Annotation'],
  ['/alerts', 'Alerts'], ['/anomalies', 'Anomalies'], ['/recommendations', 'Recommendations'], ['/security', 'Security'], ['/webhooks', 'Webhooks'],
  ['/audit', 'Audit log'], ['/shares', 'Shares'], ['/settings', 'Settings'],
];

export function App() {
  const [cfg, setCfg] = useState<UiConfig | null>(null);
  const [token, setToken] = useState<string | null>(() => storedToken());
  const [me, setMe] = useState<any>(null);
  const [orgId, setOrgId] = useState<string | null>(() => localStorage.getItem('gw.org'));
  const [err, setErr] = useState<string | null>(null);
  const [theme, setTheme] = useState(() => localStorage.getItem('gw.theme') ?? 'auto');
  const { path } = useLocation();
  useEffect(() => {
    // A token link opened in a tab that already shows the sign-in page changes only the fragment.
    const on = () => setToken(storedToken());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  useEffect(() => void fetch('/api/v1/ui-config').then((r) => r.json()).then((j) => setCfg(j.data), () => setCfg({ oidc: null, temporal_ui_url: null })), []);
  useEffect(() => {
    if (cfg?.oidc && path === '/auth/callback') void finishOidc(cfg.oidc).then((t) => (setToken(t), navigate('/')), (e: Error) => setErr(e.message));
  }, [cfg, path]);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('gw.theme', theme);
  }, [theme]);
  useEffect(() => {
    if (!token) return;
    setSession({ token, orgId: null });
    get('/api/v1/me').then((m) => {
      setMe(m);
      const pick = m.organizations.find((o: any) => o.id === orgId)?.id ?? m.organizations[0]?.id ?? null;
      setOrgId(pick);
    }, (e: Error) => setErr(e.message));
  }, [token]);
  useEffect(() => {
    if (!token) return;
    setSession({ token, orgId });
    if (orgId) localStorage.setItem('gw.org', orgId);
  }, [token, orgId]);

  const shared = /^\/share\/([^/]+)$/.exec(path);
  if (shared) return <Shared token={decodeURIComponent(shared[1]!)} />;
  if (!token || (err && !me)) return <SignIn cfg={cfg} error={err} onToken={(t) => (saveToken(t), setErr(null), setToken(t))} />;
  if (!me) return <main className="state" aria-busy="true">Loading…</main>;
  const org = me.organizations.find((o: any) => o.id === orgId);
  const role: string = org?.role ?? 'viewer';
  const page = route(path, role, cfg);
  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <nav aria-label="Main">
        <strong className="brand">LLM Gateway</strong>
        <ul>{NAV.map(([to, label]) => <li key={to}><a href={to} aria-current={path === to ? 'page' : undefined} onClick={(e) => (e.preventDefault(), navigate(to))}>{label}</a></li>)}</ul>
      </nav>
      <div className="main-col">
        <header className="top">
          <label>Organization <select value={orgId ?? ''} onChange={(e) => setOrgId(e.target.value)}>{me.organizations.map((o: any) => <option key={o.id} value={o.id}>{o.name}</option>)}</select></label>
          <span className="muted">{me.user.email ?? me.user.sub} · {role}</span>
          <label>Theme <select value={theme} onChange={(e) => setTheme(e.target.value)}><option value="auto">system</option><option value="light">light</option><option value="dark">dark</option></select></label>
          <button onClick={signOut}>Sign out</button>
        </header>
        <main id="main" key={`${orgId}`}>{org ? page : <p className="state empty">You belong to no organization yet: create one with POST /api/v1/organizations.</p>}</main>
      </div>
    </div>
  );
}

function route(path: string, role: string, cfg: UiConfig | null) {
  const canWrite = role === 'admin' || role === 'editor';
  const m = /^\/(requests|traces|users|sessions|prompts|datasets)\/(.+)$/.exec(path);
  const id = m ? decodeURIComponent(m[2]!) : '';
  if (m?.[1] === 'requests') return <RequestDetail id={id} canWrite={canWrite} />;
  if (m?.[1] === 'traces') return <TraceDetail id={id} canWrite={canWrite} />;
  if (m?.[1] === 'users') return <UserDetail id={id} />;
  if (m?.[1] === 'sessions') return <SessionDetail id={id} />;
  if (m?.[1] === 'prompts') return <PromptDetail id={id} canWrite={canWrite} />;
  if (m?.[1] === 'datasets') return <DatasetDetail id={id} />;
  if (path === '/users') return <Users />;
  if (path === '/alerts') return <Alerts canWrite={canWrite} />;
  if (path === '/experiments') return <Experiments />;
  const name = path.slice(1);
  if (path === '/') return <Overview />;
  if (name === 'requests') return <Requests />;
  if (name === 'traces') return <Traces />;
  if (name === 'webhooks') return <Webhooks canWrite={canWrite} temporalUi={cfg?.temporal_ui_url ?? null} />;
  if (name === 'settings') return <Settings canWrite={canWrite} isAdmin={role === 'admin'} />;
  if (name === 'playground') return <Playground />;
  if (name === 'annotation') return <Annotation />;
  if (LISTS[name]) return <ListPage key={name} spec={LISTS[name]!} />;
  return <p className="state empty">No such page.</p>;
}

function SignIn({ cfg, error, onToken }: { cfg: UiConfig | null; error: string | null; onToken: (t: string) => void }) {
  return (
    <main className="signin">
      <h1>LLM Gateway</h1>
      {error && <p role="alert" className="bad">{error}</p>}
      {cfg?.oidc && <button onClick={() => void startOidc(cfg.oidc!)}>Sign in with your identity provider</button>}
      <form onSubmit={(e) => (e.preventDefault(), onToken(String(new FormData(e.currentTarget).get('token')).trim()))}>
        <label>Token (on the dev stack: the link `npm run dev` prints, or `npm run token`) <textarea name="token" rows={3} required /></label>
        <button type="submit">Sign in with a token</button>
      </form>
    </main>
  );
}
