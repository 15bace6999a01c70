import { useApi } from '../api';
import { fmt, Page, Status } from '../components/States';
import { Table } from '../components/Table';
import { navigate } from '../router';

/**
 * The API's other collections as read-only lists (the API decides what each role sees); each
 * entry names its endpoint and the columns worth a glance.
 */
type Spec = { title: string; path: string; cols: [string, string, ((v: any) => string)?][]; open?: (row: any) => string };
const t = fmt.time;
export const LISTS: Record<string, Spec> = {
  sessions: { title: 'Sessions', path: '/api/v1/sessions?limit=200', cols: [['id', 'Session'], ['user_id', 'User'], ['trace_count', 'Traces'], ['request_count', 'Requests'], ['cost_usd', 'Cost', fmt.usd], ['last_seen_at', 'Last seen', t]], open: (s) => `/sessions/${encodeURIComponent(s.id)}` },
  prompts: { title: 'Prompts', path: '/api/v1/prompts', cols: [['name', 'Name'], ['latest_version', 'Latest version'], ['updated_at', 'Updated', t]], open: (p) => `/prompts/${p.id}` },
  evaluators: { title: 'Evaluators', path: '/api/v1/evaluators', cols: [['name', 'Name'], ['type', 'Type'], ['created_at', 'Created', t]] },
  'eval-runs': { title: 'Eval runs', path: '/api/v1/eval-runs', cols: [['id', 'Run'], ['status', 'Status'], ['progress', 'Progress', fmt.pct], ['created_at', 'Created', t]] },
  datasets: { title: 'Datasets', path: '/api/v1/datasets', cols: [['name', 'Name'], ['items', 'Items', fmt.int], ['latest_version', 'Version', t]], open: (d) => `/datasets/${d.id}` },
  experiments: { title: 'Experiments', path: '/api/v1/experiments', cols: [['name', 'Name'], ['status', 'Status'], ['created_at', 'Created', t]] },
  alerts: { title: 'Alerts', path: '/api/v1/alerts', cols: [['name', 'Name'], ['type', 'Type'], ['is_active', 'Active', String], ['created_at', 'Created', t]] },
  anomalies: { title: 'Anomalies', path: '/api/v1/anomalies', cols: [['metric', 'Metric'], ['severity', 'Severity'], ['detected_at', 'Detected', t]] },
  recommendations: { title: 'Recommendations', path: '/api/v1/recommendations', cols: [['title', 'Recommendation'], ['estimated_savings_usd', 'Savings', fmt.usd], ['status', 'Status']] },
  security: { title: 'Security findings', path: '/api/v1/security/findings', cols: [['type', 'Finding'], ['severity', 'Severity'], ['status', 'Status'], ['created_at', 'Found', t]] },
  audit: { title: 'Audit log', path: '/api/v1/audit-logs', cols: [['action', 'Action'], ['actor', 'Actor'], ['resource_type', 'Resource'], ['created_at', 'When', t]] },
  shares: { title: 'Shares', path: '/api/v1/shares', cols: [['resource_type', 'Type'], ['resource_id', 'Resource'], ['view_count', 'Views', fmt.int], ['expires_at', 'Expires', t]] },
};

export function ListPage({ spec }: { spec: Spec }) {
  const q = useApi<any[]>(spec.path);
  return (
    <Page title={spec.title}>
      <Status q={q} empty={(d) => !Array.isArray(d) || d.length === 0}>
        {(d) => <Table label={spec.title} rows={d} onOpen={spec.open ? (r) => navigate(spec.open!(r)) : undefined} cols={spec.cols.map(([k, label, f]) => ({ key: k, label, render: (r: any) => (f ? f(r[k]) : String(r[k] ?? '—')) }))} />}
      </Status>
    </Page>
  );
}
