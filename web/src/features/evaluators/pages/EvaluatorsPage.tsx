import { Badge } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useEvaluators } from '../hooks/useEvaluators';

export function EvaluatorsPage() {
  const list = useEvaluators();
  return (
    <Page title="Evaluators" description="Checks that score calls and experiment items: LLM judges, regexes, JSON schemas, latency and cost bounds.">
      <QueryState query={list} what="evaluators" empty={{ title: 'No evaluators yet', description: 'Create one with POST /api/v1/evaluators, then run it over calls in an eval run or online on new calls.' }}>
        {(rows) => (
          <DataTable caption="Evaluators" rows={rows} rowKey={(e) => e.id} columns={[
            { key: 'n', label: 'Name', render: (e) => e.name },
            { key: 't', label: 'Type', render: (e) => <Badge variant="light" color="grape" radius="sm" tt="none">{e.type.replace(/_/g, ' ')}</Badge> },
            { key: 's', label: 'Score', render: (e) => e.score_data_type },
            { key: 'o', label: 'Online', render: (e) => (e.online ? 'on new calls' : '—') },
            { key: 'c', label: 'Created', render: (e) => fmt.time(e.created_at) },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
