import { Button, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { DataTable } from '../../../components/DataTable';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { SelectFilter } from '../../../components/Filters';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { AnomalyDetail } from '../components/AnomalyDetail';
import { useAnomalies } from '../hooks/useAnomalies';
import { measureName, value, where } from '../lib';
import { ANOMALY_STATUSES } from '../search';

const route = getRouteApi('/app/anomalies');

/** Anomalies: the list with a status filter; one opens beside it (`?id=`) with its evidence. */
export function AnomaliesPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const set = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const list = useAnomalies(clean({ status: search.status }));
  return (
    <Page
      title="Anomalies"
      description="Measures that left their expected band (seasonal baseline), per project, model or user."
      filters={
        <SelectFilter
          label="Status"
          value={search.status}
          options={ANOMALY_STATUSES}
          onApply={(v) => set({ status: v })}
        />
      }
    >
      <QueryState
        query={list}
        what="anomalies"
        empty={{
          title: search.status ? `No ${search.status} anomalies` : 'No anomalies detected',
          description:
            'The detector compares each hour with its baseline; departures land here. ' +
            'Set an alert rule on anomalies to be told.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Anomalies"
            rows={rows}
            rowKey={(a) => a.id}
            minWidth={900}
            columns={[
              {
                key: 'm',
                label: 'Measure',
                render: (a) => (
                  <Text size="sm" fw={500}>
                    {measureName(a.measure)} {a.direction === 'up' ? '↑' : '↓'}
                  </Text>
                ),
              },
              { key: 'd', label: 'Where', render: (a) => where(a) },
              { key: 'o', label: 'Observed', numeric: true, render: (a) => value(a.measure, a.observed) },
              {
                key: 'e',
                label: 'Expected',
                numeric: true,
                render: (a) => `${value(a.measure, a.expected.low)} – ${value(a.measure, a.expected.high)}`,
              },
              { key: 'st', label: 'Status', render: (a) => <StatusBadge value={a.status} /> },
              { key: 'l', label: 'Last seen', render: (a) => fmt.time(a.last_seen) },
              {
                key: 'x',
                label: 'Details',
                render: (a) => (
                  <Button
                    size="compact-sm"
                    variant="default"
                    aria-label={`Open ${measureName(a.measure)} anomaly, ${where(a)}`}
                    onClick={() => set({ id: a.id })}
                  >
                    Open
                  </Button>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      <DetailDrawer opened={!!search.id} onClose={() => set({ id: undefined })} title="Anomaly">
        {search.id && <AnomalyDetail id={search.id} />}
      </DetailDrawer>
    </Page>
  );
}
