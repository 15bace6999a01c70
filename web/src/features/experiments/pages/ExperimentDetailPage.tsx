import { Group, NativeSelect, Progress, Stack, Text } from '@mantine/core';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import type { Schema } from '../../../api/types';
import { CopyId } from '../../../components/CopyId';
import { ExportButton } from '../../../components/ExportButton';
import { Facts, Kpis } from '../../../components/Facts';
import { AppLink, ButtonLink } from '../../../components/Links';
import { Page, Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useDatasets } from '../../datasets/hooks/useDatasets';
import { CancelRun } from '../components/CancelRun';
import { ItemRuns } from '../components/ItemRuns';
import { STATUSES, useExperiment, useExperimentItems } from '../hooks/useExperiments';

const route = getRouteApi('/app/experiments/$id');
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** What the dataset ran through, in words: a stored prompt, a model with an inline prompt, or outside outputs. */
function subjectText(s: Record<string, unknown>): string {
  const prompt = str(s.prompt);
  const via = [str(s.provider), str(s.model)].filter(Boolean).join(' ');
  if (prompt) return `prompt ${prompt}${via ? ` on ${via}` : ''}`;
  if (str(s.template)) return `an inline prompt on ${via || 'a model'}`;
  return 'outputs posted by your application';
}

/** Headline figures: runs done, each score's mean, cost, latency. */
function Summary({ x }: { x: Schema<'Experiment'> }) {
  const total = x.counts.pending + x.counts.completed + x.counts.error;
  const done = x.counts.completed + x.counts.error;
  return (
    <Kpis
      items={[
        [
          'Runs',
          <Stack key="r" gap={4}>
            <span>
              {fmt.int(done)} / {fmt.int(total)}
            </span>
            <Progress value={total ? (done / total) * 100 : 0} size="xs" aria-label="Runs done" />
          </Stack>,
        ],
        ...x.scores.map((s): [string, string] => [`Mean ${s.name}`, s.mean === null ? '—' : String(round3(s.mean))]),
        ['Failed', fmt.int(x.counts.error)],
        ['Cost', fmt.usd(x.cost_usd)],
        ['Latency p50', fmt.ms(x.latency_p50_ms)],
        ['Latency p95', fmt.ms(x.latency_p95_ms)],
      ]}
    />
  );
}

/**
 * One experiment's results: its figures, how it ran, and every item run (filtered by status in
 * the URL), with an export of exactly the rows listed as CSV, JSON Lines or Parquet.
 */
export function ExperimentDetailPage() {
  const { id } = route.useParams();
  const { status } = route.useSearch();
  const navigate = useNavigate();
  const experiment = useExperiment(id);
  const datasets = useDatasets();
  const pages = useExperimentItems(id, status, experiment.data?.status === 'running');
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.data) ?? [], [pages.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const more = useCallback(
    () => void (hasNextPage && !isFetchingNextPage && fetchNextPage()),
    [hasNextPage, isFetchingNextPage, fetchNextPage],
  );
  const x = experiment.data;
  const dataset = datasets.data?.find((d) => d.id === x?.dataset_id);
  const setStatus = (v: string) =>
    void navigate({ to: '/experiments/$id', params: { id }, search: { status: STATUSES.find((s) => s === v) } });
  const times = x && x.repetitions > 1 ? `, ${x.repetitions} times per item` : '';
  const description = x ? `Ran ${subjectText(x.subject)}${times}.` : undefined;
  const empty = {
    title: status ? `No ${status} runs` : 'No item runs yet',
    description: 'Runs appear here as the experiment works through the dataset.',
  };
  const actions = (
    <>
      {x && <CancelRun kind="experiment" id={x.id} name={x.name} status={x.status} />}
      <ExportButton resource="experiment_results" filter={{ experiment_id: id, status }} what="the results" />
      <ButtonLink to="/experiments" variant="default" size="xs">
        All experiments
      </ButtonLink>
    </>
  );
  return (
    <Page title={x?.name ?? 'Experiment'} description={description} actions={actions}>
      <QueryState query={experiment} what="the experiment">
        {(e) => (
          <Stack gap="md">
            <Summary x={e} />
            <Facts
              items={[
                [
                  'Status',
                  <Group key="s" gap="xs">
                    <StatusBadge value={e.status} />
                    {e.error && (
                      <Text span size="sm" c="var(--mantine-color-error)">
                        {e.error}
                      </Text>
                    )}
                  </Group>,
                ],
                [
                  'Dataset',
                  <AppLink
                    key="d"
                    to="/datasets/$id"
                    params={{ id: e.dataset_id }}
                    search={{ version: e.dataset_version }}
                  >
                    {dataset?.name ?? 'the dataset'} as of {fmt.time(e.dataset_version)}
                  </AppLink>,
                ],
                ['Started', fmt.time(e.created_at)],
                ['Finished', e.finished_at ? fmt.time(e.finished_at) : 'not yet'],
                ['Workflow', e.workflow_id ? <CopyId key="w" value={e.workflow_id} what="workflow id" /> : '—'],
              ]}
            />
          </Stack>
        )}
      </QueryState>
      <Section
        title="Item runs"
        actions={
          <NativeSelect
            aria-label="Status of the runs"
            size="xs"
            value={status ?? ''}
            onChange={(e) => setStatus(e.currentTarget.value)}
            data={[{ value: '', label: 'Every status' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
          />
        }
      >
        <QueryState query={{ ...pages, data: pages.data ? rows : undefined }} what="the item runs" empty={empty}>
          {(list) => <ItemRuns rows={list} onEnd={more} />}
        </QueryState>
      </Section>
    </Page>
  );
}
