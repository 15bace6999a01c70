import { useState } from 'react';
import { call, qs, useApi } from '../api';
import { fmt, Page, Status } from '../components/States';

const TYPES = ['cost', 'error_rate', 'latency_p95', 'latency_p99', 'request_count', 'token_count', 'cost_per_user', 'anomaly', 'security_finding'];

/** Alerts: the rules, a rule editor (writers) and each rule's history of state changes. */
export function Alerts({ canWrite }: { canWrite: boolean }) {
  const list = useApi<any[]>('/api/v1/alerts');
  const [open, setOpen] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const save = async (f: FormData) => {
    const warning = String(f.get('warning_threshold') ?? '');
    try {
      await call('POST', '/api/v1/alerts', {
        name: f.get('name'), type: f.get('type'), operator: f.get('operator'), threshold: Number(f.get('threshold')), window_minutes: Number(f.get('window_minutes')),
        ...(warning ? { warning_threshold: Number(warning) } : {}), ...(f.get('group_by') ? { group_by: f.get('group_by') } : {}),
      });
      setErr(null);
      list.reload();
    } catch (e) {
      setErr((e as Error).message);
    }
  };
  return (
    <Page title="Alerts">
      {canWrite && (
        <form className="card" onSubmit={(e) => (e.preventDefault(), void save(new FormData(e.currentTarget)))}>
          <h2>New alert rule</h2>
          <div className="inline">
            <label>Name <input name="name" required /></label>
            <label>Measure <select name="type">{TYPES.map((t) => <option key={t}>{t}</option>)}</select></label>
            <label>Is <select name="operator"><option value="gt">above</option><option value="gte">at least</option><option value="lt">below</option><option value="lte">at most</option></select></label>
            <label>Threshold <input name="threshold" type="number" step="any" required /></label>
            <label>Warning at <input name="warning_threshold" type="number" step="any" /></label>
            <label>Window (minutes) <input name="window_minutes" type="number" min={1} max={1440} defaultValue={15} required /></label>
            <label>Per <select name="group_by"><option value="">everything</option>{['model', 'provider', 'user', 'api_key'].map((g) => <option key={g}>{g}</option>)}</select></label>
          </div>
          <button type="submit">Create rule</button>
          {err && <p role="alert" className="bad">{err}</p>}
        </form>
      )}
      <Status q={list} empty={(d) => d.length === 0}>
        {(d) => (
          <ul className="cards">
            {d.map((a) => (
              <li key={a.id} className="card">
                <h2>{a.name}</h2>
                <p>{a.type} {a.operator} {a.threshold} over {a.window_minutes} min{a.group_by ? ` per ${a.group_by}` : ''} · {a.is_active ? 'active' : 'paused'}</p>
                <button onClick={() => setOpen(open === a.id ? null : a.id)} aria-expanded={open === a.id}>History</button>
                {open === a.id && <History id={a.id} />}
              </li>
            ))}
          </ul>
        )}
      </Status>
    </Page>
  );
}

function History({ id }: { id: string }) {
  const q = useApi<any[]>(`/api/v1/alerts/${id}/events${qs({ limit: 50 })}`);
  return (
    <Status q={q} empty={(d) => d.length === 0}>
      {(d) => (
        <table className="plain">
          <caption>State changes, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">Group</th><th scope="col">Value</th><th scope="col">Threshold</th></tr></thead>
          <tbody>{d.map((e) => <tr key={e.id}><td>{fmt.time(e.at)}</td><td>{e.kind}</td><td>{e.group || '—'}</td><td>{e.value ?? '—'}</td><td>{e.threshold ?? '—'}</td></tr>)}</tbody>
        </table>
      )}
    </Status>
  );
}

/** Experiments: pick 2 to 5 and compare them side by side, item by item, with regressions. */
export function Experiments() {
  const list = useApi<any[]>('/api/v1/experiments');
  const [picked, setPicked] = useState<string[]>([]);
  const cmp = useApi<any>(picked.length >= 2 ? `/api/v1/experiments/compare?ids=${picked.join(',')}` : null);
  return (
    <Page title="Experiments">
      <Status q={list} empty={(d) => d.length === 0}>
        {(d) => (
          <fieldset>
            <legend>Compare (the first picked is the baseline)</legend>
            {d.map((x) => (
              <label key={x.id}><input type="checkbox" checked={picked.includes(x.id)} onChange={(e) => setPicked((p) => (e.target.checked ? [...p, x.id].slice(0, 5) : p.filter((i) => i !== x.id)))} /> {x.name} · {x.status}</label>
            ))}
          </fieldset>
        )}
      </Status>
      {picked.length >= 2 && (
        <Status q={cmp}>
          {(c: any) => (
            <>
              <table className="plain">
                <caption>Aggregates and deltas against the baseline</caption>
                <thead><tr><th scope="col">Experiment</th><th scope="col">Aggregate</th><th scope="col">Delta</th></tr></thead>
                <tbody>{c.experiments.map((x: any) => <tr key={x.id}><td>{x.name}</td><td><code>{JSON.stringify(x.aggregate)}</code></td><td><code>{x.delta ? JSON.stringify(x.delta) : 'baseline'}</code></td></tr>)}</tbody>
              </table>
              <table className="plain">
                <caption>Items side by side</caption>
                <thead><tr><th scope="col">Item</th>{c.experiments.map((x: any) => <th scope="col" key={x.id}>{x.name}</th>)}</tr></thead>
                <tbody>{c.items.slice(0, 200).map((it: any) => (
                  <tr key={it.item_id}><td>{it.item_id}</td>{c.experiments.map((x: any) => <td key={x.id}>{String(it.runs[x.id]?.outputs?.[0] ?? '—').slice(0, 200)} <small className="muted">{Object.entries(it.runs[x.id]?.scores ?? {}).map(([k, v]) => `${k} ${v}`).join(' · ')}</small></td>)}</tr>
                ))}</tbody>
              </table>
              <p>{c.regressions.length} regressed item(s).</p>
            </>
          )}
        </Status>
      )}
    </Page>
  );
}
