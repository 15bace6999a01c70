import { useState, type KeyboardEvent } from 'react';
import { qs, useApi } from '../api';
import { fmt, Page, Status } from '../components/States';
import { Table } from '../components/Table';
import { navigate, useQuery } from '../router';
import { ShareButton } from '../components/ShareButton';

export function Traces() {
  const [q, setQ] = useQuery();
  const list = useApi<any[]>(`/api/v1/traces${qs({ limit: 200, status: q.get('status'), name: q.get('name') })}`);
  return (
    <Page title="Traces" actions={<>
      <label>Status <select value={q.get('status') ?? ''} onChange={(e) => setQ({ status: e.target.value })}><option value="">any</option><option>running</option><option>completed</option><option>error</option></select></label>
      <label>Name <input defaultValue={q.get('name') ?? ''} placeholder="any" onKeyDown={(e) => e.key === 'Enter' && setQ({ name: (e.target as HTMLInputElement).value })} /></label>
    </>}>
      <Status q={list} empty={(d) => d.length === 0}>
        {(d) => (
          <Table label="Traces" rows={d} onOpen={(t) => navigate(`/traces/${encodeURIComponent(t.id)}`)} cols={[
            { key: 't', label: 'Started', width: '1.4fr', render: (t) => fmt.time(t.start_time) },
            { key: 'n', label: 'Name', render: (t) => t.name ?? t.id },
            { key: 's', label: 'Status', width: '.8fr', render: (t) => <span className={t.status === 'error' ? 'bad' : 'ok'}>{t.status}</span> },
            { key: 'sp', label: 'Spans', width: '.6fr', render: (t) => t.span_count },
            { key: 'd', label: 'Duration', width: '.8fr', render: (t) => fmt.ms(t.duration_ms) },
            { key: 'c', label: 'Cost', width: '.8fr', render: (t) => fmt.usd(t.cost_usd) },
          ]} />
        )}
      </Status>
    </Page>
  );
}

interface Node { id: string; name: string | null; span_type: string; status: string | null; start_time: string | null; duration_ms: number | null; children: Node[] }

/** One trace: the span tree (a keyboard-navigable treeview) beside a waterfall, and the chosen span's input and output. */
export function TraceDetail({ id, canWrite }: { id: string; canWrite: boolean }) {
  const t = useApi(`/api/v1/traces/${encodeURIComponent(id)}`);
  const [sel, setSel] = useState<string | null>(null);
  return (
    <Page title="Trace">
      <Status q={t}>
        {(d: any) => {
          const t0 = Date.parse(d.start_time);
          const total = Math.max(1, d.duration_ms ?? Math.max(...d.spans.map((s: any) => (s.start_time ? Date.parse(s.start_time) - t0 : 0) + (s.duration_ms ?? 0)), 1));
          const flat: Node[] = [];
          const walk = (n: Node) => (flat.push(n), n.children.forEach(walk));
          d.tree.forEach(walk);
          const span = d.spans.find((s: any) => s.id === (sel ?? flat[0]?.id));
          const depth = new Map<string, number>();
          const setDepth = (n: Node, k: number) => (depth.set(n.id, k), n.children.forEach((c) => setDepth(c, k + 1)));
          d.tree.forEach((n: Node) => setDepth(n, 0));
          const key = (e: KeyboardEvent, i: number) => {
            const j = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : -1;
            if (j >= 0 && j < flat.length) (e.preventDefault(), setSel(flat[j]!.id), (document.getElementById(`span-${j}`) as HTMLElement | null)?.focus());
          };
          return (
            <>
              {canWrite && <ShareButton type="trace" id={d.id} projectId={d.project_id} />}
              <dl className="facts"><dt>Name</dt><dd>{d.name ?? d.id}</dd><dt>Status</dt><dd>{d.status}</dd><dt>Duration</dt><dd>{fmt.ms(d.duration_ms)}</dd><dt>Tokens</dt><dd>{fmt.int(d.total_tokens)}</dd><dt>Cost</dt><dd>{fmt.usd(d.cost_usd)}</dd></dl>
              <div className="trace">
                <ul role="tree" aria-label="Spans" className="tree">
                  {flat.map((n, i) => {
                    const s = d.spans.find((x: any) => x.id === n.id);
                    const left = s?.start_time ? ((Date.parse(s.start_time) - t0) / total) * 100 : 0;
                    const width = Math.max(0.5, ((s?.duration_ms ?? 0) / total) * 100);
                    return (
                      <li key={n.id} id={`span-${i}`} role="treeitem" aria-level={(depth.get(n.id) ?? 0) + 1} aria-selected={span?.id === n.id} tabIndex={span?.id === n.id ? 0 : -1}
                        onClick={() => setSel(n.id)} onKeyDown={(e) => key(e, i)} className={span?.id === n.id ? 'sel' : ''}>
                        <span className="label" style={{ paddingLeft: `${(depth.get(n.id) ?? 0) * 16}px` }}>{n.name ?? n.id} <small>{n.span_type}</small></span>
                        <span className="bar-wrap" aria-hidden="true"><span className={`bar ${n.status === 'error' ? 'bad' : ''}`} style={{ left: `${left}%`, width: `${width}%` }} /></span>
                        <span className="dur">{fmt.ms(n.duration_ms)}</span>
                      </li>
                    );
                  })}
                </ul>
                {span && (
                  <div className="span">
                    <h2>{span.name ?? span.id}</h2>
                    <p>{span.model ?? ''} {fmt.int(span.total_tokens)} tokens · {fmt.usd(span.cost_usd)}</p>
                    <h3>Input</h3><pre className="code" tabIndex={0}>{JSON.stringify(span.input, null, 2)}</pre>
                    <h3>Output</h3><pre className="code" tabIndex={0}>{JSON.stringify(span.output, null, 2)}</pre>
                  </div>
                )}
              </div>
            </>
          );
        }}
      </Status>
    </Page>
  );
}
