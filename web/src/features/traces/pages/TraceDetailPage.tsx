import { Grid, Group, Paper, Stack } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { useMemo } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { Facts } from '../../../components/Facts';
import { AppLink, ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { EmptyView, QueryState } from '../../../components/QueryState';
import { ShareButton } from '../../../components/ShareButton';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { SpanPanel } from '../components/SpanPanel';
import { layout, SpanTree } from '../components/SpanTree';
import { AddToCampaign } from '../../annotation/components/AddToCampaign';
import { useTrace } from '../hooks/useTraces';

const route = getRouteApi('/app/traces/$id');

/** One trace: the span tree beside its waterfall, and the chosen span's input and output. */
export function TraceDetailPage() {
  const { id } = route.useParams();
  const trace = useTrace(id);
  const { canWrite } = useCurrent();
  return (
    <Page
      title={trace.data?.name ?? 'Trace'}
      description={trace.data ? `Trace ${trace.data.id} · ${fmt.time(trace.data.start_time)}` : undefined}
      actions={
        <ButtonLink to="/traces" variant="default" size="xs">
          All traces
        </ButtonLink>
      }
    >
      <QueryState query={trace} what="the trace">
        {(t) => (
          <Stack gap="lg">
            {canWrite && (
              <Group gap="sm">
                <ShareButton type="trace" id={t.id} projectId={t.project_id} />
                <AddToCampaign target={{ trace_id: t.id }} projectId={t.project_id} what="trace" />
              </Group>
            )}
            <Paper withBorder p="md">
              <Facts
                items={[
                  ['Status', <StatusBadge key="s" value={t.status} />],
                  ['Duration', fmt.ms(t.duration_ms)],
                  ['Tokens', fmt.int(t.total_tokens)],
                  ['Cost', fmt.usd(t.cost_usd)],
                  ['Spans', fmt.int(t.span_count)],
                  [
                    'Session',
                    t.session_id ? (
                      <AppLink to="/sessions/$id" params={{ id: t.session_id }}>
                        {t.session_id}
                      </AppLink>
                    ) : (
                      '—'
                    ),
                  ],
                ]}
              />
            </Paper>
            <Spans trace={t} />
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}

function Spans({ trace }: { trace: Schema<'Trace'> }) {
  const rows = useMemo(() => layout(trace.tree, trace.start_time, trace.duration_ms), [trace]);
  // The selected span lives in the URL, so a span's score (or a shared address) opens it selected.
  const { span: linked } = route.useSearch();
  const navigate = route.useNavigate();
  const pick = (id: string) => void navigate({ search: { span: id }, replace: true });
  const selected = (linked && trace.spans.some((s) => s.id === linked) ? linked : null) ?? rows[0]?.node.id ?? null;
  const span = trace.spans.find((s) => s.id === selected);
  if (rows.length === 0)
    return (
      <EmptyView title="No spans yet" description="Spans appear as the SDK or the OpenTelemetry exporter sends them." />
    );
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 7 }}>
        <SpanTree rows={rows} selected={selected} onSelect={pick} />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 5 }}>{span && <SpanPanel span={span} />}</Grid.Col>
    </Grid>
  );
}
