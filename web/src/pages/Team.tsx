import { useState } from 'react';
import { call, getSession, useApi } from '../api';
import { fmt, Status } from '../components/States';

/** Settings that belong to the organization: provider keys, members, invitations, plan, rate limits. */
export function Team({ canWrite, isAdmin }: { canWrite: boolean; isAdmin: boolean }) {
  const org = getSession().orgId;
  const projects = useApi<any[]>('/api/v1/projects');
  const providerKeys = useApi<any[]>('/api/v1/provider-keys');
  const members = useApi<any[]>(`/api/v1/organizations/${org}/members`);
  const invitations = useApi<any[]>(isAdmin ? `/api/v1/organizations/${org}/invitations` : null);
  const billing = useApi<any>('/api/v1/billing');
  const limits = useApi<any>('/api/v1/rate-limits');
  const [msg, setMsg] = useState<string | null>(null);
  const act = (p: Promise<unknown>, reload: () => void, ok?: (r: any) => string) => p.then((r) => (setMsg(ok ? ok(r) : null), reload()), (e: Error) => setMsg(e.message));
  return (
    <>
      {msg && <p role="status">{msg}</p>}
      <h2>Provider keys</h2>
      <Status q={providerKeys} empty={(d) => d.length === 0}>
        {(d) => <ul>{d.map((k) => <li key={k.id}>{k.provider} · {k.key_hint ?? k.hint ?? '••••'} · project {k.project_id}</li>)}</ul>}
      </Status>
      {canWrite && projects.data?.length ? (
        <form className="inline" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void act(call('PUT', '/api/v1/provider-keys', { project_id: f.get('project_id'), provider: f.get('provider'), api_key: f.get('api_key') }), providerKeys.reload); e.currentTarget.reset(); }}>
          <label>Project <select name="project_id">{projects.data.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}</select></label>
          <label>Provider <select name="provider">{['openai', 'anthropic', 'gemini', 'mistral', 'groq', 'deepseek', 'xai', 'together', 'openrouter', 'ollama'].map((p) => <option key={p}>{p}</option>)}</select></label>
          <label>Key <input name="api_key" type="password" required autoComplete="off" /></label>
          <button type="submit">Save provider key</button>
        </form>
      ) : null}
      <h2>Members</h2>
      <Status q={members} empty={(d) => d.length === 0}>
        {(d) => <ul>{d.map((m) => <li key={m.user_id}>{m.email ?? m.sub ?? m.user_id} · {m.role}</li>)}</ul>}
      </Status>
      {isAdmin && (
        <>
          <h2>Invitations</h2>
          <Status q={invitations} empty={(d: any[]) => d.length === 0}>
            {(d: any[]) => <ul>{d.map((i) => <li key={i.id}>{i.email} · {i.role} · {i.status} · expires {fmt.time(i.expires_at)}</li>)}</ul>}
          </Status>
          <form className="inline" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void act(call('POST', `/api/v1/organizations/${org}/invitations`, { email: f.get('email'), role: f.get('role') }), invitations.reload, () => 'Invitation sent'); }}>
            <label>Email <input name="email" type="email" required /></label>
            <label>Role <select name="role"><option>viewer</option><option>editor</option><option>admin</option></select></label>
            <button type="submit">Invite</button>
          </form>
        </>
      )}
      <h2>Plan</h2>
      <Status q={billing}>{(b: any) => <pre className="code" tabIndex={0}>{JSON.stringify(b, null, 2)}</pre>}</Status>
      <h2>Rate limits</h2>
      <Status q={limits}>{(l: any) => <pre className="code" tabIndex={0}>{JSON.stringify(l, null, 2)}</pre>}</Status>
    </>
  );
}
