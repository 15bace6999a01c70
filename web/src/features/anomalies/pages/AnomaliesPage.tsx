import { Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { DataTable } from '../../../components/DataTable';
import { SelectFilter } from '../../../components/Filters';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { useAnomalies } from '../hooks/useAnomalies';
import { ANOMALY_STATUSES } from '../search';

const route = getRouteApi('/app/anomalies');
/** An observed value in the unit of its measure. */
const value = (measure: string, v: number) => (measure === 'cost' ? fmt.usd(v) : measure === 'error_rate' ? fmt.pct(v) : measure === 'latency_p95' ? fmt.ms(v) : fmt.int(v));

export function AnomaliesPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const list = useAnomalies(clean({ status: search.status }));
  return (
    <Page
      title="Anomalies" description="Measures that left their expected band (seasonal baseline), per project, model or user."
      filters={<SelectFilter label="Status" value={search.status} options={ANOMALY_STATUSES} onApply={(v) => void navigate({ search: (s) => clean({ ...s, status: v }), replace: true })} />}
    >
      <QueryState query={list} what="anomalies" empty={{ title: search.status ? `No ${search.status} anomalies` : 'No anomalies detected', description: 'The detector compares each hour with its baseline; departures land here.' }}>
        {(rows) => (
          <DataTable caption="Anomalies" rows={rows} rowKey={(a) => a.id} minWidth={820} columns={[
            { key: 'm', label: 'Measure', render: (a) => <Text size="sm" fw={500}>{a.measure.replace(/_/g, ' ')} {a.direction === 'up' ? '↑' : '↓'}</Text> },
            { key: 'd', label: 'Where', render: (a) => `${a.dimension}: ${a.dimension_value}` },
            { key: 'o', label: 'Observed', numeric: true, render: (a) => value(a.measure, a.observed) },
            { key: 'e', label: 'Expected', numeric: true, render: (a) => `${value(a.measure, a.expected.low)} – ${value(a.measure, a.expected.high)}` },
            { key: 'st', label: 'Status', render: (a) => <StatusBadge value={a.status} /> },
            { key: 'l', label: 'Last seen', render: (a) => fmt.time(a.last_seen) },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
