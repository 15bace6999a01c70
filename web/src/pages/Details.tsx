import { useState } from 'react';
import { call, useApi } from '../api';
import { Chart } from '../components/Chart';
import { fmt, Page, Status } from '../components/States';
import { Table } from '../components/Table';
import { navigate } from '../router';

const go = (to: string) => (e: { preventDefault(): void }) => (e.preventDefault(), navigate(to));

export function Users() {
  const q = useApi<any[]>('/api/v1/users?limit=200');
  return (
    <Page title="Users">
      <Status q={q} empty={(d) => d.length === 0}>
        {(d) => (
          <Table label="End users" rows={d} onOpen={(u) => navigate(`/users/${encodeURIComponent(u.user_id)}`)} cols={[
            { key: 'u', label: 'User', render: (u) => u.user_id },
            { key: 'r', label: 'Requests', width: '.7fr', render: (u) => fmt.int(u.requests) },
            { key: 'c', label: 'Spend', width: '.7fr', render: (u) => fmt.usd(u.cost_usd) },
            { key: 'e', label: 'Error rate', width: '.7fr', render: (u) => fmt.pct(u.error_rate) },
            { key: 'l', label: 'Limit (requests)', width: '.9fr', render: (u) => (u.rate_limit?.requests_limit ? `${u.rate_limit.requests}/${u.rate_limit.requests_limit}` : '—') },
            { key: 's', label: 'Last seen', render: (u) => fmt.time(u.last_seen) },
          ]} />
        )}
      </Status>
    </Page>
  );
}

/** One end user: spend over time, limits, top models, latest requests and sessions. */
export function UserDetail({ id }: { id: string }) {
  const q = useApi(`/api/v1/users/${encodeURIComponent(id)}`);
  return (
    <Page title={`User ${id}`}>
      <Status q={q}>
        {(u: any) => (
          <>
            <dl className="kpis"><div><dt>Spend</dt><dd>{fmt.usd(u.cost_usd)}</dd></div><div><dt>Requests</dt><dd>{fmt.int(u.requests)}</dd></div><div><dt>Error rate</dt><dd>{fmt.pct(u.error_rate)}</dd></div><div><dt>Sessions</dt><dd>{fmt.int(u.sessions)}</dd></div><div><dt>Rate limit</dt><dd>{u.rate_limit?.requests_limit ? `${u.rate_limit.requests} / ${u.rate_limit.requests_limit}` : 'none'}</dd></div></dl>
            <Chart title="Spend (USD)" x={u.stats.series.map((p: any) => p.bucket)} series={[['cost', u.stats.series.map((p: any) => p.cost_usd)]]} />
            <h2>Latest requests</h2>
            <ul>{u.latest_requests.map((r: any) => <li key={r.id}><a href={`/requests/${r.id}`} onClick={go(`/requests/${r.id}`)}>{fmt.time(r.created_at)} · {r.model} · {fmt.usd(r.cost_usd)}</a></li>)}</ul>
            <h2>Latest sessions</h2>
            <ul>{u.latest_sessions.map((s: any) => <li key={s.session_id}><a href={`/sessions/${encodeURIComponent(s.session_id)}`} onClick={go(`/sessions/${encodeURIComponent(s.session_id)}`)}>{s.session_id}</a> · {s.requests} requests · {fmt.usd(s.cost_usd)}</li>)}</ul>
          </>
        )}
      </Status>
    </Page>
  );
}

/** A session as a conversation: its traces and calls in time order, each with what was said. */
export function SessionDetail({ id }: { id: string }) {
  const q = useApi(`/api/v1/sessions/${encodeURIComponent(id)}?include_bodies=true`);
  return (
    <Page title={`Session ${id}`}>
      <Status q={q}>
        {(s: any) => {
          const items = [...(s.requests ?? []).map((r: any) => ({ at: r.created_at, kind: 'request', r })), ...(s.traces ?? []).map((t: any) => ({ at: t.start_time, kind: 'trace', t }))].sort((a, b) => String(a.at).localeCompare(String(b.at)));
          return (
            <ol className="conversation">
              {items.map((i, k) => (
                <li key={k} className="card">
                  {i.kind === 'request' ? (
                    <><strong>{fmt.time(i.at)} · call to {i.r.model}</strong> <a href={`/requests/${i.r.id}`} onClick={go(`/requests/${i.r.id}`)}>details</a> <span className="muted">{fmt.usd(i.r.cost_usd)}</span></>
                  ) : (
                    <><strong>{fmt.time(i.at)} · trace {i.t.name ?? i.t.id}</strong> <a href={`/traces/${encodeURIComponent(i.t.id)}`} onClick={go(`/traces/${encodeURIComponent(i.t.id)}`)}>tree</a>
                      {i.t.input !== undefined && <pre className="code" tabIndex={0}>{JSON.stringify(i.t.input, null, 2)}</pre>}
                      {i.t.output !== undefined && <pre className="code" tabIndex={0}>{JSON.stringify(i.t.output, null, 2)}</pre>}</>
                  )}
                </li>
              ))}
            </ol>
          );
        }}
      </Status>
    </Page>
  );
}

/** A line diff (longest common subsequence): enough for prompt templates. */
export function diffLines(a: string, b: string): { op: ' ' | '-' | '+'; text: string }[] {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i]![j] = x[i] === y[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: { op: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) out.push({ op: ' ', text: x[i]! }), i++, j++;
    else if (L[i + 1]![j]! >= L[i]![j + 1]!) out.push({ op: '-', text: x[i++]! });
    else out.push({ op: '+', text: y[j++]! });
  }
  while (i < n) out.push({ op: '-', text: x[i++]! });
  while (j < m) out.push({ op: '+', text: y[j++]! });
  return out;
}

const text = (t: unknown) => (typeof t === 'string' ? t : JSON.stringify(t, null, 2));

/** A prompt: versions with labels (editable by writers) and a diff of any two. */
export function PromptDetail({ id, canWrite }: { id: string; canWrite: boolean }) {
  const q = useApi(`/api/v1/prompts/${id}`);
  const [pair, setPair] = useState<[number, number] | null>(null);
  const [err, setErr] = useState<string | null>(null);
  return (
    <Page title="Prompt">
      {err && <p role="alert" className="bad">{err}</p>}
      <Status q={q}>
        {(p: any) => {
          const vs: any[] = [...p.versions].sort((a, b) => b.version - a.version);
          const [a, b] = pair ?? [vs[1]?.version ?? vs[0]?.version, vs[0]?.version];
          const va = vs.find((v) => v.version === a);
          const vb = vs.find((v) => v.version === b);
          return (
            <>
              <h2>{p.name}</h2>
              <table className="plain">
                <caption>Versions</caption>
                <thead><tr><th scope="col">Version</th><th scope="col">Model</th><th scope="col">Labels</th><th scope="col">Message</th><th scope="col">Created</th></tr></thead>
                <tbody>{vs.map((v) => (
                  <tr key={v.version}><td>{v.version}</td><td>{v.model ?? '—'}</td>
                    <td>{v.labels.join(', ') || '—'} {canWrite && <button onClick={() => { const l = prompt('Labels (comma-separated)', v.labels.join(',')); if (l !== null) void call('PUT', `/api/v1/prompts/${id}/versions/${v.version}/labels`, { labels: l.split(',').map((s) => s.trim()).filter(Boolean) }).then(q.reload, (e: Error) => setErr(e.message)); }}>Edit</button>}</td>
                    <td>{v.commit_message ?? ''}</td><td>{fmt.time(v.created_at)}</td></tr>
                ))}</tbody>
              </table>
              {vs.length > 0 && (
                <>
                  <h2>Diff</h2>
                  <label>From <select value={a} onChange={(e) => setPair([Number(e.target.value), b])}>{vs.map((v) => <option key={v.version}>{v.version}</option>)}</select></label>{' '}
                  <label>to <select value={b} onChange={(e) => setPair([a, Number(e.target.value)])}>{vs.map((v) => <option key={v.version}>{v.version}</option>)}</select></label>
                  <pre className="code diff" tabIndex={0} aria-label="Differences between the versions">
                    {diffLines(text(va?.template), text(vb?.template)).map((l, k) => <div key={k} className={l.op === '+' ? 'add' : l.op === '-' ? 'del' : ''}>{l.op} {l.text}</div>)}
                  </pre>
                </>
              )}
            </>
          );
        }}
      </Status>
    </Page>
  );
}

/** A dataset's items at its latest version (or `?version=`), with their split. */
export function DatasetDetail({ id }: { id: string }) {
  const ds = useApi(`/api/v1/datasets/${id}`);
  const items = useApi<any[]>(`/api/v1/datasets/${id}/items?limit=1000`);
  return (
    <Page title="Dataset">
      <Status q={ds}>{(d: any) => <p>{d.name} · {fmt.int(d.items)} items · version {fmt.time(d.latest_version)}</p>}</Status>
      <Status q={items} empty={(d) => d.length === 0}>
        {(d) => (
          <Table label="Dataset items" rows={d} cols={[
            { key: 'i', label: 'Item', width: '.8fr', render: (r) => r.id },
            { key: 'in', label: 'Input', width: '2fr', render: (r) => JSON.stringify(r.input) },
            { key: 'ex', label: 'Expected', width: '2fr', render: (r) => JSON.stringify(r.expected_output) },
            { key: 's', label: 'Split', width: '.6fr', render: (r) => r.split ?? '—' },
          ]} />
        )}
      </Status>
    </Page>
  );
}
