import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { ButtonLink } from '../../../components/Links';
import { Page, Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { EvaluatorForm } from '../components/EvaluatorForm';
import { ScoreConfigs } from '../components/ScoreConfigs';
import { useDeleteEvaluator, useEvaluators } from '../hooks/useEvaluators';

type Evaluator = Schema<'Evaluator'>;

const DESCRIPTION =
  'Checks that score calls and experiment items: LLM judges, regexes, JSON schemas, latency and cost bounds.';

export function EvaluatorsPage() {
  const { canWrite } = useCurrent();
  const list = useEvaluators();
  const remove = useDeleteEvaluator();
  const [editing, setEditing] = useState<Evaluator | 'new' | null>(null);
  return (
    <Page
      title="Evaluators"
      description={DESCRIPTION}
      actions={
        <>
          <ButtonLink to="/eval-runs" variant="default">
            Eval runs
          </ButtonLink>
          {canWrite && <Button onClick={() => setEditing('new')}>New evaluator</Button>}
        </>
      }
    >
      <Stack gap="xl">
        <Section title="Evaluators">
          <QueryState
            query={list}
            what="evaluators"
            empty={{
              title: 'No evaluators yet',
              description: canWrite
                ? 'Create one, then run it over past calls in an eval run or online on new calls.'
                : 'An editor or admin creates them.',
              action: canWrite ? <Button onClick={() => setEditing('new')}>New evaluator</Button> : undefined,
            }}
          >
            {(rows) => (
              <DataTable
                caption="Evaluators"
                rows={rows}
                rowKey={(e) => e.id}
                minWidth={720}
                columns={[
                  {
                    key: 'n',
                    label: 'Name',
                    render: (e) => (
                      <Stack gap={0}>
                        <Text size="sm" fw={500}>
                          {e.name}
                        </Text>
                        {e.description && (
                          <Text size="xs" c="dimmed" lineClamp={1}>
                            {e.description}
                          </Text>
                        )}
                      </Stack>
                    ),
                  },
                  {
                    key: 't',
                    label: 'Type',
                    render: (e) => (
                      <Badge variant="light" color="grape" radius="sm" tt="none">
                        {e.type.replace(/_/g, ' ')}
                      </Badge>
                    ),
                  },
                  { key: 's', label: 'Score', render: (e) => e.score_data_type },
                  { key: 'o', label: 'Online', render: (e) => (e.online ? 'on new calls' : '—') },
                  { key: 'c', label: 'Updated', render: (e) => fmt.time(e.updated_at) },
                  {
                    key: 'a',
                    label: 'Actions',
                    render: (e) =>
                      canWrite && (
                        <Group gap="xs" wrap="nowrap">
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => setEditing(e)}
                            aria-label={`Edit ${e.name}`}
                          >
                            Edit
                          </Button>
                          <ConfirmButton
                            title={`Delete ${e.name}?`}
                            message="Its scores stay; runs in progress that use it finish."
                            aria-label={`Delete ${e.name}`}
                            loading={remove.isPending && remove.variables === e.id}
                            onConfirm={() => remove.mutate(e.id)}
                          >
                            Delete
                          </ConfirmButton>
                        </Group>
                      ),
                  },
                ]}
              />
            )}
          </QueryState>
          {remove.error && <ErrorState error={remove.error} title="Could not delete the evaluator" />}
        </Section>
        <ScoreConfigs />
      </Stack>
      <EvaluatorForm
        evaluator={editing === 'new' ? null : editing}
        opened={editing !== null}
        onClose={() => setEditing(null)}
      />
    </Page>
  );
}
