import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { ALERT_OPERATORS, type AlertOperator } from '../../../api/enums';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { Page } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { AlertEditor, OPERATOR_WORDS } from '../components/AlertEditor';
import { AlertHistory } from '../components/AlertHistory';
import { useAlerts, useDeleteAlert, usePauseAlert } from '../hooks/useAlerts';

type Rule = Schema<'AlertRule'>;
// The rule's operator comes back as a plain string: words for the ones the editor offers.
const isOperator = (op: string): op is AlertOperator => ALERT_OPERATORS.some((o) => o === op);
const word = (op: string) => (isOperator(op) ? OPERATOR_WORDS[op] : op);
const summary = (a: Rule) => {
  const per = a.group_by ? ` per ${a.group_by}` : '';
  return `${a.type.replace(/_/g, ' ')} ${word(a.operator)} ${a.threshold} over ${a.window_minutes} min${per}`;
};

/** Alerts: the rules, a rule editor (writers) and each rule's history of state changes. */
export function AlertsPage() {
  const list = useAlerts();
  const { canWrite } = useCurrent();
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const pause = usePauseAlert();
  const remove = useDeleteAlert();
  const failed = pause.error ?? remove.error;
  return (
    <Page
      title="Alerts"
      description={
        'Rules on cost, errors, latency, tokens, anomalies and findings, evaluated on a schedule; ' +
        'they notify through webhooks.'
      }
    >
      {canWrite && <AlertEditor />}
      {failed && <ErrorState error={failed} title="Could not change the rule" />}
      <QueryState
        query={list}
        what="alert rules"
        empty={{
          title: 'No alert rules yet',
          description: canWrite
            ? 'Create one above: it is evaluated every few minutes.'
            : 'An editor or admin can create them.',
        }}
      >
        {(rules) => (
          <Stack gap="sm" component="ul" className="cards" p={0} m={0} style={{ listStyle: 'none' }}>
            {rules.map((a) => (
              <Paper key={a.id} withBorder p="md" component="li" className="card">
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <div>
                    <Group gap="xs">
                      <Title order={2} size="h5">
                        {a.name}
                      </Title>
                      <StatusBadge value={a.is_active ? 'active' : 'paused'} />
                    </Group>
                    <Text size="sm" c="dimmed">
                      {summary(a)}
                    </Text>
                  </div>
                  <Group gap="xs">
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => setOpen(open === a.id ? null : a.id)}
                      aria-expanded={open === a.id}
                    >
                      History
                    </Button>
                    {canWrite && (
                      <Button
                        size="xs"
                        variant="default"
                        aria-expanded={editing === a.id}
                        onClick={() => setEditing(editing === a.id ? null : a.id)}
                      >
                        Edit
                      </Button>
                    )}
                    {canWrite && (
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => pause.mutate({ id: a.id, is_active: !a.is_active })}
                      >
                        {a.is_active ? 'Pause' : 'Resume'}
                      </Button>
                    )}
                    {canWrite && (
                      <ConfirmButton
                        title="Delete the rule?"
                        message={`“${a.name}”, its history and its schedule are deleted.`}
                        onConfirm={() => remove.mutate(a.id)}
                      >
                        Delete
                      </ConfirmButton>
                    )}
                  </Group>
                </Group>
                {editing === a.id && (
                  <Stack mt="sm">
                    <AlertEditor key={a.updated_at} rule={a} onDone={() => setEditing(null)} />
                  </Stack>
                )}
                {open === a.id && (
                  <Stack mt="sm">
                    <AlertHistory id={a.id} />
                  </Stack>
                )}
              </Paper>
            ))}
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}
