import { Anchor, Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useUiConfig } from '../../auth/useUiConfig';
import { useEvaluators } from '../../evaluators/hooks/useEvaluators';
import { RunResults } from '../components/RunResults';
import { StartRun } from '../components/StartRun';
import { useCancelEvalRun, useEvalRuns } from '../hooks/useEvalRuns';

export function EvalRunsPage() {
  const { canWrite } = useCurrent();
  const list = useEvalRuns();
  const evaluators = useEvaluators();
  const cancel = useCancelEvalRun();
  const config = useUiConfig();
  const temporal = config.data?.temporal_ui_url ?? null;
  const [starting, setStarting] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const name = (id: string) => evaluators.data?.find((e) => e.id === id)?.name ?? id.slice(0, 8);
  const hasEvaluators = (evaluators.data?.length ?? 0) > 0;
  const startButton =
    canWrite &&
    (hasEvaluators ? (
      <Button onClick={() => setStarting(true)}>Start eval run</Button>
    ) : (
      <ButtonLink to="/evaluators">Create an evaluator first</ButtonLink>
    ));
  const openRun = list.data?.find((r) => r.id === open);
  return (
    <Page
      title="Eval runs"
      description="Evaluators run over a set of calls or traces, each run a durable Temporal workflow."
      actions={startButton}
    >
      <QueryState
        query={list}
        what="eval runs"
        empty={{
          title: 'No eval runs yet',
          description: canWrite
            ? 'Start one: choose evaluators and a filter of past calls or traces to score.'
            : 'An editor or admin starts them.',
          action: startButton || undefined,
        }}
      >
        {(rows) => (
          <Stack gap="lg">
            <DataTable
              caption="Eval runs"
              rows={rows}
              rowKey={(r) => r.id}
              minWidth={1060}
              columns={[
                { key: 'c', label: 'Started', render: (r) => fmt.time(r.created_at) },
                { key: 'v', label: 'Evaluators', render: (r) => r.evaluator_ids.map(name).join(', ') },
                {
                  key: 's',
                  label: 'Status',
                  render: (r) => (
                    <div style={{ minWidth: 'max-content' }}>
                      <StatusBadge value={r.status} />
                    </div>
                  ),
                },
                {
                  key: 'p',
                  label: 'Progress',
                  render: (r) => (
                    <Group gap="xs" wrap="nowrap">
                      <Progress
                        value={r.progress * 100}
                        w={90}
                        size="sm"
                        aria-label={`Progress of run ${r.id}`}
                        animated={r.status === 'running'}
                      />
                      <Text size="xs">{fmt.pct(r.progress)}</Text>
                    </Group>
                  ),
                },
                {
                  key: 'n',
                  label: 'Scored',
                  numeric: true,
                  render: (r) => `${fmt.int(r.counts.completed)}${r.total === null ? '' : ` / ${fmt.int(r.total)}`}`,
                },
                { key: 'e', label: 'Errors', numeric: true, render: (r) => fmt.int(r.counts.error) },
                { key: 'j', label: 'Judge cost', numeric: true, render: (r) => fmt.usd(r.judge_cost_usd) },
                {
                  key: 'a',
                  label: 'Average score',
                  render: (r) =>
                    r.scores.map((s) => (s.average === null ? '—' : s.average.toFixed(2))).join(' · ') || '—',
                },
                {
                  key: 'w',
                  label: 'Workflow',
                  render: (r) =>
                    temporal ? (
                      <Anchor
                        href={`${temporal}/namespaces/default/workflows/${encodeURIComponent(r.workflow_id)}`}
                        target="_blank"
                        rel="noreferrer"
                        size="sm"
                      >
                        Temporal UI
                      </Anchor>
                    ) : (
                      <Text size="xs" ff="monospace">
                        {r.workflow_id}
                      </Text>
                    ),
                },
                {
                  key: 'x',
                  label: 'Actions',
                  render: (r) => (
                    <Group gap="xs" wrap="nowrap">
                      <Button
                        size="xs"
                        variant={open === r.id ? 'light' : 'default'}
                        aria-expanded={open === r.id}
                        onClick={() => setOpen(open === r.id ? null : r.id)}
                      >
                        Results
                      </Button>
                      {canWrite && (r.status === 'running' || r.status === 'pending') && (
                        <ConfirmButton
                          title="Cancel the run?"
                          message="Targets not scored yet are left; scores already written stay."
                          confirm="Cancel run"
                          loading={cancel.isPending && cancel.variables === r.id}
                          onConfirm={() => cancel.mutate(r.id)}
                        >
                          Cancel
                        </ConfirmButton>
                      )}
                    </Group>
                  ),
                },
              ]}
            />
            {cancel.error && <ErrorState error={cancel.error} title="Could not cancel the run" />}
            {openRun && (
              <Paper withBorder p="md" component="section" aria-label="Run results">
                <Stack gap="sm">
                  <Group justify="space-between">
                    <Text fw={600}>Results of the run started {fmt.time(openRun.created_at)}</Text>
                    <StatusBadge value={openRun.status} />
                  </Group>
                  {openRun.error && (
                    <Text size="sm" c="red.8">
                      {openRun.error}
                    </Text>
                  )}
                  <RunResults run={openRun} names={name} />
                </Stack>
              </Paper>
            )}
          </Stack>
        )}
      </QueryState>
      {canWrite && evaluators.data && (
        <StartRun evaluators={evaluators.data} opened={starting} onClose={() => setStarting(false)} />
      )}
    </Page>
  );
}
