import { useState } from 'react';
import { call, useApi } from '../api';
import { fmt, Page, Status } from '../components/States';

const EVENTS = ['request.created', 'trace.completed', 'alert.triggered'];

/** Webhooks: CRUD, the secret once with a copy button, a test send, the latest deliveries linked to Temporal. */
export function Webhooks({ canWrite, temporalUi }: { canWrite: boolean; temporalUi: string | null }) {
  const list = useApi<any[]>('/api/v1/webhooks');
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const create = async (form: HTMLFormElement) => {
    const f = new FormData(form);
    try {
      const r = await call('POST', '/api/v1/webhooks', { name: f.get('name'), url: f.get('url'), events: EVENTS.filter((e) => f.get(e)) });
      setSecret(r.data.secret);
      setErr(null);
      list.reload();
    } catch (e) {
      setErr((e as Error).message);
    }
  };
  return (
    <Page title="Webhooks">
      {canWrite && (
        <form className="card" onSubmit={(e) => (e.preventDefault(), void create(e.currentTarget))}>
          <h2>New webhook</h2>
          <label>Name <input name="name" required /></label>
          <label>URL <input name="url" type="url" required placeholder="https://…" /></label>
          <fieldset><legend>Events</legend>{EVENTS.map((e) => <label key={e}><input type="checkbox" name={e} defaultChecked={e === 'request.created'} /> {e}</label>)}</fieldset>
          <button type="submit">Create</button>
          {err && <p role="alert" className="bad">{err}</p>}
        </form>
      )}
      {secret && (
        <div className="card secret" role="status">
          <p>Signing secret (shown once):</p>
          <code data-testid="secret">{secret}</code> <button onClick={() => void navigator.clipboard?.writeText(secret)}>Copy</button> <button onClick={() => setSecret(null)}>Done</button>
        </div>
      )}
      <Status q={list} empty={(d) => d.length === 0}>
        {(d) => (
          <ul className="cards">
            {d.map((w) => (
              <li key={w.id} className="card">
                <h2>{w.name}</h2>
                <p>{w.url} · {w.events.join(', ')} · {w.is_active ? 'active' : 'paused'}</p>
                {canWrite && (
                  <>
                    <button onClick={() => void call('POST', `/api/v1/webhooks/${w.id}/test`).then(() => setOpen(w.id + ':' + Date.now()))}>Send test</button>{' '}
                    <button onClick={() => void call('PATCH', `/api/v1/webhooks/${w.id}`, { is_active: !w.is_active }).then(list.reload, (e: Error) => setErr(e.message))}>{w.is_active ? 'Pause' : 'Resume'}</button>{' '}
                    <button onClick={() => confirm(`Delete webhook ${w.name}?`) && void call('DELETE', `/api/v1/webhooks/${w.id}`).then(list.reload, (e: Error) => setErr(e.message))}>Delete</button>{' '}
                  </>
                )}
                <button onClick={() => setOpen(w.id + ':' + Date.now())}>Deliveries</button>
                {open?.startsWith(w.id) && <Deliveries key={open} id={w.id} temporalUi={temporalUi} />}
              </li>
            ))}
          </ul>
        )}
      </Status>
    </Page>
  );
}

function Deliveries({ id, temporalUi }: { id: string; temporalUi: string | null }) {
  const q = useApi<any[]>(`/api/v1/webhooks/${id}/deliveries`);
  return (
    <Status q={q} empty={(d) => d.length === 0}>
      {(d) => (
        <table className="plain">
          <caption>Latest deliveries</caption>
          <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">HTTP</th><th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col">Workflow</th></tr></thead>
          <tbody>
            {d.map((x) => (
              <tr key={x.id}>
                <td>{x.event_type}</td><td>{x.status}</td><td>{x.http_status ?? '—'}</td><td>{x.attempt_count}</td><td>{fmt.time(x.next_retry_at)}</td>
                <td>{temporalUi ? <a href={`${temporalUi}/namespaces/default/workflows/webhook-delivery-${x.id}`} target="_blank" rel="noreferrer">Temporal UI</a> : `webhook-delivery-${x.id}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Status>
  );
}
