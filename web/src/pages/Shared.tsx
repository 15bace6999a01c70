import { useEffect, useState } from 'react';
import { fmt } from '../components/States';

/** A share link in a browser: the one shared resource, read-only, without signing in. */
export function Shared({ token }: { token: string }) {
  const [state, setState] = useState<{ data?: any; error?: string }>({});
  useEffect(() => {
    fetch(`/share/${encodeURIComponent(token)}`, { headers: { accept: 'application/json' } })
      .then(async (r) => ((await r.json()) as any))
      .then((j) => setState(j.success ? { data: j.data } : { error: j.error ?? 'This link is not valid' }), () => setState({ error: 'Could not load this link' }));
  }, [token]);
  return (
    <main className="shared">
      <h1>Shared {state.data ? state.data.resource_type.replace('_', ' ') : 'view'}</h1>
      {state.error && <p role="alert" className="bad">{state.error}</p>}
      {!state.data && !state.error && <p aria-busy="true">Loading…</p>}
      {state.data && (
        <>
          <p className="muted">Read-only{state.data.expires_at ? `, until ${fmt.time(state.data.expires_at)}` : ''}.</p>
          <pre className="code" tabIndex={0}>{JSON.stringify(state.data.resource, null, 2)}</pre>
        </>
      )}
    </main>
  );
}
