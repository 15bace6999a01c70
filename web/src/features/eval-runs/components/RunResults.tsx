import { Text } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useEvalRunResults } from '../hooks/useEvalRuns';

type Run = Schema<'EvalRun'>;

/** The target of a result on its page: a call or a trace. */
function Target({ run, id }: { run: Run; id: string }) {
  const kind = (run.target as { kind?: unknown }).kind;
  if (kind === 'traces')
    return (
      <AppLink to="/traces/$id" params={{ id }} size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
        {id.slice(0, 13)}…
      </AppLink>
    );
  return (
    <AppLink to="/requests/$id" params={{ id }} size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
      {id.slice(0, 13)}…
    </AppLink>
  );
}

/** Each target's score by evaluator, linked to the call or trace it scored. */
export function RunResults({ run, names }: { run: Run; names: (id: string) => string }) {
  const results = useEvalRunResults(run.id, run.status === 'running' || run.status === 'pending');
  return (
    <QueryState
      query={results}
      what="the results"
      isEmpty={(r) => r.data.length === 0}
      empty={{
        title: 'No results yet',
        description:
          run.status === 'running' || run.status === 'pending'
            ? 'Scores appear here as the run goes.'
            : 'Nothing matched the run’s filter: start another with a wider range.',
      }}
    >
      {(page) => (
        <>
          <DataTable
            caption={`Results of run ${run.id}`}
            rows={page.data}
            rowKey={(r) => `${r.target_id}:${r.evaluator_id}`}
            minWidth={680}
            columns={[
              { key: 't', label: 'Target', render: (r) => <Target run={run} id={r.target_id} /> },
              { key: 'e', label: 'Evaluator', render: (r) => names(r.evaluator_id) },
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
                key: 'v',
                label: 'Score',
                numeric: true,
                render: (r) =>
                  r.error ? (
                    <Text size="xs" c="red.8" title={r.error}>
                      {r.error.slice(0, 40)}
                    </Text>
                  ) : (
                    (r.string_value ?? (r.value === null ? '—' : String(Math.round(r.value * 1000) / 1000)))
                  ),
              },
              {
                key: 'j',
                label: 'Judge call',
                render: (r) =>
                  r.judge_request_id ? (
                    <AppLink to="/requests/$id" params={{ id: r.judge_request_id }} size="sm">
                      open
                    </AppLink>
                  ) : (
                    '—'
                  ),
              },
              { key: 'u', label: 'Updated', render: (r) => fmt.time(r.updated_at) },
            ]}
          />
          {page.next_cursor && (
            <Text size="xs" c="dimmed">
              Showing the first 200 results.
            </Text>
          )}
        </>
      )}
    </QueryState>
  );
}
