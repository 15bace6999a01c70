import { Group, Progress, Text } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useEvalRuns } from '../hooks/useEvalRuns';

export function EvalRunsPage() {
  const list = useEvalRuns();
  return (
    <Page title="Eval runs" description="Evaluators run over a set of calls or traces, each run a durable Temporal workflow.">
      <QueryState query={list} what="eval runs" empty={{ title: 'No eval runs yet', description: 'Start one with POST /api/v1/eval-runs: evaluators and a filter of calls to score.' }}>
        {(rows) => (
          <DataTable caption="Eval runs" rows={rows} rowKey={(r) => r.id} minWidth={760} columns={[
            { key: 'c', label: 'Started', render: (r) => fmt.time(r.created_at) },
            { key: 's', label: 'Status', render: (r) => <StatusBadge value={r.status} /> },
            { key: 'p', label: 'Progress', render: (r) => (
              <Group gap="xs" wrap="nowrap"><Progress value={r.progress * 100} w={90} size="sm" aria-label={`Progress of run ${r.id}`} /><Text size="xs">{fmt.pct(r.progress)}</Text></Group>
            ) },
            { key: 'n', label: 'Scored', numeric: true, render: (r) => `${fmt.int(r.counts.completed)}${r.total === null ? '' : ` / ${fmt.int(r.total)}`}` },
            { key: 'e', label: 'Errors', numeric: true, render: (r) => fmt.int(r.counts.error) },
            { key: 'j', label: 'Judge cost', numeric: true, render: (r) => fmt.usd(r.judge_cost_usd) },
            { key: 'a', label: 'Average score', render: (r) => r.scores.map((s) => (s.average === null ? '—' : s.average.toFixed(2))).join(' · ') || '—' },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
