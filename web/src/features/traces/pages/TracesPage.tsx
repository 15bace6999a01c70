import { getRouteApi, useNavigate } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { SelectFilter, TextFilter } from '../../../components/Filters';
import { ButtonLink } from '../../../components/Links';
import { ExportButton } from '../../../components/ExportButton';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { useTraces } from '../hooks/useTraces';
import { TRACE_STATUSES } from '../search';

const route = getRouteApi('/app/traces');

const COLUMNS: Column<Schema<'TraceSummary'>>[] = [
  { key: 't', label: 'Started', width: '1.4fr', render: (t) => fmt.time(t.start_time) },
  { key: 'n', label: 'Name', width: '1.6fr', render: (t) => t.name ?? t.id },
  { key: 's', label: 'Status', width: '.9fr', render: (t) => <StatusBadge value={t.status} /> },
  { key: 'sp', label: 'Spans', width: '.6fr', render: (t) => fmt.int(t.span_count) },
  { key: 'd', label: 'Duration', width: '.8fr', render: (t) => fmt.ms(t.duration_ms) },
  { key: 'tok', label: 'Tokens', width: '.8fr', render: (t) => fmt.int(t.total_tokens) },
  { key: 'c', label: 'Cost', width: '.8fr', render: (t) => fmt.usd(t.cost_usd) },
];

export function TracesPage() {
  const search = route.useSearch();
  const setSearch = route.useNavigate();
  const navigate = useNavigate();
  const filter = clean({ status: search.status, name: search.name });
  const list = useTraces(filter);
  const set = (patch: Partial<typeof search>) =>
    void setSearch({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const filtered = !!(search.status || search.name);
  return (
    <Page
      title="Traces"
      description="Agent runs and multi-step calls, as span trees with timing, tokens and cost."
      actions={<ExportButton resource="traces" filter={filter} what="traces" />}
      filters={
        <>
          <SelectFilter
            label="Status"
            value={search.status}
            options={TRACE_STATUSES}
            onApply={(v) => set({ status: v })}
          />
          <TextFilter label="Name" value={search.name} onApply={(v) => set({ name: v })} />
        </>
      }
    >
      <QueryState
        query={list}
        what="traces"
        empty={
          filtered
            ? {
                title: 'No trace matches these filters',
                action: (
                  <ButtonLink to="/traces" variant="default">
                    Clear filters
                  </ButtonLink>
                ),
              }
            : {
                title: 'No traces yet',
                description:
                  'Send traces with the SDK or any OpenTelemetry exporter (OTLP to /v1/traces) with a project key.',
              }
        }
      >
        {(rows) => (
          <VirtualTable
            label="Traces"
            rows={rows}
            columns={COLUMNS}
            rowKey={(t) => t.id}
            onOpen={(t) => void navigate({ to: '/traces/$id', params: { id: t.id } })}
          />
        )}
      </QueryState>
    </Page>
  );
}
