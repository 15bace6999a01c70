import { Button, Code, Stack, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { DataTable } from '../../../components/DataTable';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { SelectFilter } from '../../../components/Filters';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { FindingDetail } from '../components/FindingDetail';
import { place } from '../lib';
import { useFindings } from '../hooks/useFindings';
import { FINDING_SEVERITIES, FINDING_STATUSES } from '../search';

const route = getRouteApi('/app/security');

/** Security findings: the list with status and severity filters; one opens beside it (`?id=`). */
export function SecurityPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const set = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const list = useFindings(clean({ status: search.status, min_severity: search.min_severity }));
  return (
    <Page
      title="Security findings"
      description="Secrets, personal data and prompt injections seen in request bodies and spans (excerpts masked)."
      filters={
        <>
          <SelectFilter
            label="Status"
            value={search.status}
            options={FINDING_STATUSES}
            onApply={(v) => set({ status: v })}
          />
          <SelectFilter
            label="At least"
            value={search.min_severity}
            options={FINDING_SEVERITIES}
            anyLabel="any severity"
            onApply={(v) => set({ min_severity: v })}
          />
        </>
      }
    >
      <QueryState
        query={list}
        what="findings"
        empty={{
          title: 'No findings',
          description:
            'Every logged body is scanned; what the detectors find is listed here, once per distinct finding. ' +
            'Set an alert rule on security findings to be told.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Security findings"
            rows={rows}
            rowKey={(f) => f.id}
            minWidth={940}
            columns={[
              {
                key: 'k',
                label: 'Finding',
                render: (f) => (
                  <Stack gap={2}>
                    <Text size="sm" fw={500}>
                      {f.kind.replace(/_/g, ' ')}: {f.category}
                    </Text>
                    <Code style={{ overflowWrap: 'anywhere' }}>{f.excerpt}</Code>
                  </Stack>
                ),
              },
              { key: 's', label: 'Severity', render: (f) => <StatusBadge value={f.severity} /> },
              { key: 'w', label: 'Where', render: (f) => place(f) },
              { key: 'n', label: 'Seen', numeric: true, render: (f) => `${fmt.int(f.occurrences)}×` },
              { key: 'st', label: 'Status', render: (f) => <StatusBadge value={f.status} /> },
              { key: 'l', label: 'Last seen', render: (f) => fmt.time(f.last_seen) },
              {
                key: 'x',
                label: 'Details',
                render: (f) => (
                  <Button
                    size="compact-sm"
                    variant="default"
                    aria-label={`Open ${f.kind.replace(/_/g, ' ')} finding ${f.category}`}
                    onClick={() => set({ id: f.id })}
                  >
                    Open
                  </Button>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      <DetailDrawer opened={!!search.id} onClose={() => set({ id: undefined })} title="Security finding">
        {search.id && <FindingDetail id={search.id} />}
      </DetailDrawer>
    </Page>
  );
}
