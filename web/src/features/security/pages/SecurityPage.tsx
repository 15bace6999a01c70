import { Code, Stack, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { DataTable } from '../../../components/DataTable';
import { SelectFilter } from '../../../components/Filters';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { useFindings } from '../hooks/useFindings';
import { FINDING_SEVERITIES, FINDING_STATUSES } from '../search';

const route = getRouteApi('/app/security');

export function SecurityPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const set = (patch: Partial<typeof search>) => void navigate({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const list = useFindings(clean({ status: search.status, min_severity: search.min_severity }));
  return (
    <Page
      title="Security findings" description="Secrets, personal data and prompt injections seen in request bodies and spans (excerpts masked)."
      filters={<>
        <SelectFilter label="Status" value={search.status} options={FINDING_STATUSES} onApply={(v) => set({ status: v })} />
        <SelectFilter label="At least" value={search.min_severity} options={FINDING_SEVERITIES} anyLabel="any severity" onApply={(v) => set({ min_severity: v })} />
      </>}
    >
      <QueryState query={list} what="findings" empty={{ title: 'No findings', description: 'Every logged body is scanned; what the detectors find is listed here, once per distinct finding.' }}>
        {(rows) => (
          <DataTable caption="Security findings" rows={rows} rowKey={(f) => f.id} minWidth={860} columns={[
            { key: 'k', label: 'Finding', render: (f) => <Stack gap={2}><Text size="sm" fw={500}>{f.kind.replace(/_/g, ' ')}: {f.category}</Text><Code style={{ overflowWrap: 'anywhere' }}>{f.excerpt}</Code></Stack> },
            { key: 's', label: 'Severity', render: (f) => <StatusBadge value={f.severity} /> },
            { key: 'w', label: 'Where', render: (f) => `${f.source} ${f.field.replace('_', ' ')}` },
            { key: 'n', label: 'Seen', numeric: true, render: (f) => `${fmt.int(f.occurrences)}×` },
            { key: 'st', label: 'Status', render: (f) => <StatusBadge value={f.status} /> },
            { key: 'l', label: 'Last seen', render: (f) => fmt.time(f.last_seen) },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
