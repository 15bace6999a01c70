import { useCallback, useEffect, useRef, useState } from 'react';
import { call, qs, useApi } from '../api';
import { fmt, Page, Status } from '../components/States';
import { Table } from '../components/Table';
import { navigate, useQuery } from '../router';
import { ShareButton } from '../components/ShareButton';

const FILTERS = ['model', 'provider', 'user_id', 'status'] as const;

/** The request log: filters in the URL, keyset pages loaded as the virtual list nears its end. */
export function Requests() {
  const [q, setQ] = useQuery();
  const filter = Object.fromEntries(FILTERS.map((k) => [k, q.get(k) ?? undefined]));
  const key = JSON.stringify(filter);
  const [rows, setRows] = useState<any[]>([]);
  const [state, setState] = useState<{ loading: boolean; error?: Error; cursor: string | null; done: boolean }>({ loading: true, cursor: null, done: false });
  const busy = useRef(false);
  const load = useCallback(async (cursor: string | null, reset: boolean) => {
    if (busy.current) return;
    busy.current = true;
    try {
      const r = await call('GET', `/api/v1/requests${qs({ ...JSON.parse(key), limit: 200, cursor })}`);
      setRows((prev) => (reset ? r.data : [...prev, ...r.data]));
      setState({ loading: false, cursor: r.next_cursor ?? null, done: !r.next_cursor });
    } catch (error) {
      setState((s) => ({ ...s, loading: false, error: error as Error }));
    } finally {
      busy.current = false;
    }
  }, [key]);
  useEffect(() => {
    setRows([]);
    setState({ loading: true, cursor: null, done: false });
    void load(null, true);
  }, [load]);
  const q2 = { data: rows, loading: state.loading, error: state.error, reload: () => void load(null, true) };
  return (
    <Page title="Requests" actions={FILTERS.map((k) => (
      <label key={k}>{k} <input defaultValue={q.get(k) ?? ''} placeholder="any" onKeyDown={(e) => e.key === 'Enter' && setQ({ [k]: (e.target as HTMLInputElement).value })} /></label>
    ))}>
      <Status q={q2} empty={(d) => d.length === 0}>
        {(d) => (
          <Table
            label="Requests" rows={d} onOpen={(r) => navigate(`/requests/${r.id}`)}
            onEnd={() => !state.done && state.cursor && void load(state.cursor, false)}
            cols={[
              { key: 't', label: 'Time', width: '1.4fr', render: (r) => fmt.time(r.created_at) },
              { key: 'm', label: 'Model', render: (r) => r.model },
              { key: 's', label: 'Status', width: '.6fr', render: (r) => <span className={r.status_code >= 400 ? 'bad' : 'ok'}>{r.status_code}</span> },
              { key: 'tok', label: 'Tokens', width: '.7fr', render: (r) => fmt.int(r.total_tokens) },
              { key: 'c', label: 'Cost', width: '.8fr', render: (r) => fmt.usd(r.cost_usd) },
              { key: 'l', label: 'Latency', width: '.8fr', render: (r) => fmt.ms(r.latency_ms) },
              { key: 'u', label: 'User', render: (r) => r.user_id ?? '—' },
            ]}
          />
        )}
      </Status>
      <p className="muted">{rows.length.toLocaleString('en')} loaded{state.done ? ' (all)' : ''}</p>
    </Page>
  );
}

export function RequestDetail({ id, canWrite }: { id: string; canWrite: boolean }) {
  const r = useApi(`/api/v1/requests/${id}`);
  return (
    <Page title="Request">
      <Status q={r}>
        {(d: any) => (
          <>
            {canWrite && <ShareButton type="request" id={d.id} projectId={d.project_id} />}
            <dl className="facts">
              <dt>Model</dt><dd>{d.provider} / {d.model}</dd>
              <dt>Status</dt><dd>{d.status_code}{d.error ? ` — ${d.error}` : ''}</dd>
              <dt>Cost</dt><dd>{fmt.usd(d.cost_usd)}{d.cache_hit ? ` (cache hit, saved ${fmt.usd(d.cost_saved_usd)})` : ''}</dd>
              <dt>Tokens</dt><dd>{fmt.int(d.prompt_tokens)} in / {fmt.int(d.completion_tokens)} out{d.tokens_estimated ? ' (estimated)' : ''}</dd>
              <dt>Latency</dt><dd>{fmt.ms(d.latency_ms)} (first byte {fmt.ms(d.ttfb_ms)})</dd>
              <dt>Prompt version</dt><dd>{d.prompt_version_id ?? '—'}</dd>
              <dt>Trace</dt><dd>{d.trace_id ? <a href={`/traces/${encodeURIComponent(d.trace_id)}`} onClick={(e) => (e.preventDefault(), navigate(`/traces/${encodeURIComponent(d.trace_id)}`))}>{d.trace_id}</a> : '—'}</dd>
              <dt>User / session</dt><dd>{d.user_id ?? '—'} / {d.session_id ?? '—'}</dd>
              <dt>Scores</dt><dd>{d.scores.length ? d.scores.map((s: any) => `${s.name}: ${s.string_value ?? s.value}`).join(', ') : '—'}</dd>
            </dl>
            <h2>Request body</h2>
            <pre className="code" tabIndex={0}>{pretty(d.request_body) || `(not logged: log mode ${d.log_mode})`}</pre>
            <h2>Response body</h2>
            <pre className="code" tabIndex={0}>{pretty(d.response_body) || `(not logged: log mode ${d.log_mode})`}</pre>
          </>
        )}
      </Status>
    </Page>
  );
}

function pretty(s: string | undefined) {
  if (!s) return '';
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}
