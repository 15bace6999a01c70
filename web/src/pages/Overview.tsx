import { useMemo } from 'react';
import { qs, useApi } from '../api';
import { Chart } from '../components/Chart';
import { fmt, Page, Status } from '../components/States';
import { useQuery } from '../router';

const RANGES: Record<string, number> = { '24h': 1, '7d': 7, '30d': 30 };

/** Cost, requests, errors, latency and tokens over time (the rollups answer), with a breakdown. */
export function Overview() {
  const [q, setQ] = useQuery();
  const range = q.get('range') ?? '7d';
  const group = q.get('group_by') ?? 'model';
  const saved = q.get('saved_filter_id') ?? '';
  const from = useMemo(() => new Date(Date.now() - (RANGES[range] ?? 7) * 86_400_000).toISOString().slice(0, 13) + ':00:00Z', [range]);
  const stats = useApi(`/api/v1/stats${qs({ from, group_by: group, top: 5, saved_filter_id: saved, model: q.get('model') })}`);
  const filters = useApi<any[]>('/api/v1/saved-filters?view=stats');
  return (
    <Page
      title="Overview"
      actions={
        <>
          <label>Range <select value={range} onChange={(e) => setQ({ range: e.target.value })}>{Object.keys(RANGES).map((r) => <option key={r}>{r}</option>)}</select></label>
          <label>Break down by <select value={group.startsWith('property:') ? '' : group} onChange={(e) => setQ({ group_by: e.target.value })}>{['model', 'provider', 'user', 'api_key', 'status_code'].map((g) => <option key={g}>{g}</option>)}{group.startsWith('property:') && <option value="">{group}</option>}</select></label>
          <label>or custom property <input defaultValue={group.startsWith('property:') ? group.slice(9) : ''} placeholder="name" onKeyDown={(e) => e.key === 'Enter' && setQ({ group_by: (e.target as HTMLInputElement).value ? `property:${(e.target as HTMLInputElement).value}` : 'model' })} /></label>
          <label>Model <input defaultValue={q.get('model') ?? ''} onKeyDown={(e) => e.key === 'Enter' && setQ({ model: (e.target as HTMLInputElement).value })} placeholder="any" /></label>
          <label>Saved filter <select value={saved} onChange={(e) => setQ({ saved_filter_id: e.target.value })}><option value="">none</option>{(filters.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}</select></label>
        </>
      }
    >
      <Status q={stats} empty={(d: any) => d.totals.requests === 0}>
        {(d: any) => {
          const x = d.series.map((p: any) => p.bucket);
          const s = (k: string) => d.series.map((p: any) => p[k]);
          return (
            <>
              <dl className="kpis">
                <div><dt>Cost</dt><dd>{fmt.usd(d.totals.cost_usd)}</dd></div>
                <div><dt>Requests</dt><dd>{fmt.int(d.totals.requests)}</dd></div>
                <div><dt>Error rate</dt><dd>{fmt.pct(d.totals.error_rate)}</dd></div>
                <div><dt>Latency p50 / p95</dt><dd>{fmt.ms(d.totals.latency_p50_ms)} / {fmt.ms(d.totals.latency_p95_ms)}</dd></div>
                <div><dt>Tokens</dt><dd>{fmt.int(d.totals.total_tokens)}</dd></div>
              </dl>
              <div className="charts">
                <Chart title="Cost (USD)" x={x} series={[['cost', s('cost_usd')]]} />
                <Chart title="Requests and errors" x={x} series={[['requests', s('requests')], ['errors', s('errors')]]} />
                <Chart title="Latency (ms)" x={x} series={[['p50', s('latency_p50_ms')], ['p95', s('latency_p95_ms')]]} />
                <Chart title="Tokens" x={x} series={[['total tokens', s('total_tokens')]]} />
              </div>
              {d.breakdown && (
                <table className="plain">
                  <caption>By {d.breakdown.group_by}</caption>
                  <thead><tr><th scope="col">{d.breakdown.group_by}</th><th scope="col">Requests</th><th scope="col">Cost</th><th scope="col">Errors</th><th scope="col">Tokens</th></tr></thead>
                  <tbody>
                    {d.breakdown.items.map((i: any) => (
                      <tr key={i.key}><td>{i.key}</td><td>{fmt.int(i.requests)}</td><td>{fmt.usd(i.cost_usd)}</td><td>{fmt.int(i.errors)}</td><td>{fmt.int(i.total_tokens)}</td></tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          );
        }}
      </Status>
    </Page>
  );
}
