import { useState } from 'react';
import { call, useApi } from '../api';
import { fmt, Page, Status } from '../components/States';
import { Team } from './Team';

/** Projects, API keys (the key shown once), exports with download. */
export function Settings({ canWrite, isAdmin }: { canWrite: boolean; isAdmin: boolean }) {
  const projects = useApi<any[]>('/api/v1/projects');
  const keys = useApi<any[]>('/api/v1/api-keys');
  const [shown, setShown] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const act = (fn: () => Promise<unknown>) => fn().then(() => setErr(null), (e: Error) => setErr(e.message));
  return (
    <Page title="Settings">
      {err && <p role="alert" className="bad">{err}</p>}
      <h2>Projects</h2>
      <Status q={projects} empty={(d) => d.length === 0}>
        {(d) => <ul>{d.map((p) => <li key={p.id}>{p.name} <small className="muted">{p.id}</small></li>)}</ul>}
      </Status>
      {isAdmin && (
        <form className="inline" onSubmit={(e) => { e.preventDefault(); const name = new FormData(e.currentTarget).get('name'); void act(() => call('POST', '/api/v1/projects', { name }).then(projects.reload)); }}>
          <label>New project <input name="name" required /></label> <button type="submit">Create project</button>
        </form>
      )}
      <h2>API keys</h2>
      {shown && <div className="card secret" role="status"><p>New key (shown once):</p><code data-testid="new-key">{shown}</code> <button onClick={() => void navigator.clipboard?.writeText(shown)}>Copy</button></div>}
      <Status q={keys} empty={(d) => d.length === 0}>
        {(d) => (
          <table className="plain">
            <caption className="sr-only">API keys</caption>
            <thead><tr><th scope="col">Key</th><th scope="col">Scope</th><th scope="col">Project</th><th scope="col">Active</th><th scope="col">Created</th></tr></thead>
            <tbody>{d.map((k) => <tr key={k.id}><td>{k.key_prefix ?? k.prefix ?? k.id}</td><td>{k.scope}</td><td>{k.project_id}</td><td>{String(k.is_active)}</td><td>{fmt.time(k.created_at)}</td></tr>)}</tbody>
          </table>
        )}
      </Status>
      {canWrite && projects.data?.length ? (
        <form className="inline" onSubmit={(e) => { e.preventDefault(); const f = new FormData(e.currentTarget); void act(() => call('POST', '/api/v1/api-keys', { project_id: f.get('project_id'), scope: f.get('scope') }).then((r) => (setShown(r.data.key), keys.reload()))); }}>
          <label>Project <select name="project_id">{projects.data.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}</select></label>
          <label>Scope <select name="scope"><option>full</option><option>public</option></select></label>
          <button type="submit">Create key</button>
        </form>
      ) : null}
      <Exports />
      <Team canWrite={canWrite} isAdmin={isAdmin} />
    </Page>
  );
}

function Exports() {
  const list = useApi<any[]>('/api/v1/exports');
  const [err, setErr] = useState<string | null>(null);
  const start = async (f: FormData) => {
    try {
      await call('POST', '/api/v1/exports', { resource: f.get('resource'), format: f.get('format') });
      setErr(null);
      list.reload();
    } catch (e) {
      setErr((e as Error).message);
    }
  };
  return (
    <>
      <h2>Exports</h2>
      <form className="inline" onSubmit={(e) => (e.preventDefault(), void start(new FormData(e.currentTarget)))}>
        <label>Resource <select name="resource">{['requests', 'traces', 'spans', 'sessions', 'scores'].map((r) => <option key={r}>{r}</option>)}</select></label>
        <label>Format <select name="format"><option>csv</option><option>jsonl</option><option>parquet</option></select></label>
        <button type="submit">Export</button> <button type="button" onClick={list.reload}>Refresh</button>
        {err && <span role="alert" className="bad"> {err}</span>}
      </form>
      <Status q={list} empty={(d) => d.length === 0}>
        {(d) => (
          <table className="plain">
            <caption className="sr-only">Exports</caption>
            <thead><tr><th scope="col">Resource</th><th scope="col">Format</th><th scope="col">Status</th><th scope="col">Rows</th><th scope="col">Expires</th><th scope="col">File</th></tr></thead>
            <tbody>{d.map((x) => (
              <tr key={x.id}><td>{x.resource}</td><td>{x.format}</td><td>{x.status}{x.progress !== null && x.status === 'running' ? ` ${fmt.pct(x.progress)}` : ''}</td><td>{fmt.int(x.rows_written)}</td><td>{fmt.time(x.expires_at)}</td>
                <td>{x.signed_url ? <a href={x.signed_url}>Download</a> : '—'}</td></tr>
            ))}</tbody>
          </table>
        )}
      </Status>
    </>
  );
}
