import { Input, SegmentedControl, SimpleGrid, Stack } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { useMemo } from 'react';
import { useCurrent } from '../../../app/current';
import { Chart } from '../../../components/Chart';
import { ResponsiveTable } from '../../../components/RowCards';
import { Kpis } from '../../../components/Facts';
import { SelectFilter, TextFilter } from '../../../components/Filters';
import { Page, Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { ShareButton } from '../../../components/ShareButton';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { FirstRun } from '../components/FirstRun';
import { useSavedFilters, useStats, type RequestStats } from '../hooks/useStats';
import { RANGES } from '../search';

const route = getRouteApi('/app/');
const GROUPS = ['model', 'provider', 'user', 'api_key', 'status_code'] as const;

/** Cost, requests, errors, latency and tokens over time, with totals and a breakdown. */
export function OverviewPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const set = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const range = search.range ?? '7d';
  const group = search.group_by ?? 'model';
  const property = group.startsWith('property:') ? group.slice('property:'.length) : undefined;
  const stats = useStats(range, {
    group_by: group,
    top: 5,
    model: search.model,
    saved_filter_id: search.saved_filter_id,
  });
  const saved = useSavedFilters('stats');
  const { canWrite } = useCurrent();
  // The saved filter applied is a stats view: writers share it read-only.
  const view = saved.data?.find((f) => f.id === search.saved_filter_id);
  return (
    <Page
      title="Overview"
      description="What your LLM calls cost, how fast and how reliable they are."
      actions={
        canWrite && view && <ShareButton key={view.id} type="stats_view" id={view.id} projectId={view.project_id} />
      }
      filters={
        <>
          <Stack gap={4}>
            <Input.Label component="div" id="range-label">
              Range
            </Input.Label>
            <SegmentedControl
              aria-labelledby="range-label"
              value={range}
              onChange={(v) => set({ range: RANGES.find((r) => r === v) })}
              data={[...RANGES]}
            />
          </Stack>
          <SelectFilter
            label="Break down by"
            value={property ? undefined : GROUPS.find((g) => g === group)}
            options={GROUPS}
            anyLabel={property ? `property: ${property}` : null}
            onApply={(v) => set({ group_by: v })}
          />
          <TextFilter
            label="or custom property"
            placeholder="name"
            value={property}
            onApply={(v) => set({ group_by: v ? `property:${v}` : undefined })}
          />
          <TextFilter label="Model" value={search.model} onApply={(v) => set({ model: v })} />
          <SelectFilter
            label="Saved filter"
            value={search.saved_filter_id}
            anyLabel="none"
            options={(saved.data ?? []).map((f) => ({ value: f.id, label: f.name }))}
            onApply={(v) => set({ saved_filter_id: v })}
          />
        </>
      }
    >
      <QueryState query={stats} what="the statistics" isEmpty={(d) => d.totals.requests === 0} empty={undefined}>
        {(d) => (d.totals.requests === 0 ? <FirstRun onDone={() => void stats.refetch()} /> : <Dashboard stats={d} />)}
      </QueryState>
    </Page>
  );
}

function Dashboard({ stats }: { stats: RequestStats }) {
  const { totals, series, breakdown } = stats;
  const charts = useMemo(() => {
    const x = series.map((p) => p.bucket);
    return {
      x,
      cost: [{ label: 'cost', values: series.map((p) => p.cost_usd) }],
      requests: [
        { label: 'requests', values: series.map((p) => p.requests) },
        { label: 'errors', values: series.map((p) => p.errors) },
      ],
      latency: [
        { label: 'p50', values: series.map((p) => p.latency_p50_ms) },
        { label: 'p95', values: series.map((p) => p.latency_p95_ms) },
      ],
      tokens: [{ label: 'total tokens', values: series.map((p) => p.total_tokens) }],
    };
  }, [series]);
  return (
    <Stack gap="lg">
      <Kpis
        items={[
          ['Cost', fmt.usd(totals.cost_usd)],
          ['Requests', fmt.int(totals.requests)],
          ['Error rate', fmt.pct(totals.error_rate)],
          ['Latency p50 / p95', `${fmt.ms(totals.latency_p50_ms)} / ${fmt.ms(totals.latency_p95_ms)}`],
          ['Tokens', fmt.int(totals.total_tokens)],
        ]}
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Chart title="Cost (USD)" unit="usd" x={charts.x} series={charts.cost} />
        <Chart title="Requests and errors" unit="count" x={charts.x} series={charts.requests} />
        <Chart title="Latency" unit="ms" x={charts.x} series={charts.latency} />
        <Chart title="Tokens" unit="tokens" x={charts.x} series={charts.tokens} />
      </SimpleGrid>
      {breakdown && (
        <Section title={`By ${breakdown.group_by.replace(/_/g, ' ')}`}>
          <ResponsiveTable
            caption={`Breakdown by ${breakdown.group_by}`}
            minWidth={480}
            rows={breakdown.items}
            rowKey={(i) => i.key}
            columns={[
              { key: 'k', label: breakdown.group_by, card: 'title', render: (i) => i.key },
              { key: 'r', label: 'Requests', numeric: true, render: (i) => fmt.int(i.requests) },
              { key: 'c', label: 'Cost', numeric: true, render: (i) => fmt.usd(i.cost_usd) },
              { key: 'e', label: 'Errors', numeric: true, render: (i) => fmt.int(i.errors) },
              { key: 't', label: 'Tokens', numeric: true, render: (i) => fmt.int(i.total_tokens) },
            ]}
          />
        </Section>
      )}
    </Stack>
  );
}
