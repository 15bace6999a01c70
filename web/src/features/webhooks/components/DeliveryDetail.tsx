import { Button, Group, List, Paper, Stack, Text } from '@mantine/core';
import { ApiError } from '../../../api/client';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { CopyAction } from '../../../components/CopyId';
import { Facts } from '../../../components/Facts';
import { JsonBlock } from '../../../components/Json';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { HttpStatus, StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { toast } from '../../../lib/toast';
import { useDelivery, useRedeliver } from '../hooks/useWebhooks';
import { WorkflowLink } from './WorkflowLink';

type Attempt = Schema<'WebhookDeliveryAttempt'>;

const SOURCE: Record<Attempt['source'], string> = {
  delivery: 'delivery',
  test: 'test',
  redelivery: 'redelivery',
  recovery: 'recovery',
};
const source = (a: Attempt) =>
  a.source === 'redelivery' && a.redelivery ? `redelivery ${a.redelivery}` : SOURCE[a.source];

/** One attempt: when, who made it, the outcome, each redirect, and the first 1 KB of the response. */
function AttemptCard({ a }: { a: Attempt }) {
  const response = [
    a.response_headers,
    a.response_body && `\n${a.response_body}${a.response_body_truncated ? '\n… (first 1 KB)' : ''}`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <Paper withBorder p="sm" component="li" className="attempt">
      <Stack gap={6}>
        <Group gap="xs" wrap="wrap">
          <Text fw={600} size="sm">
            Attempt #{a.number}
          </Text>
          <HttpStatus code={a.http_status} />
          {[source(a), fmt.time(a.started_at), fmt.ms(a.duration_ms)].map((part, i) => (
            <Text key={i} size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
              {i > 0 && '· '}
              {part}
            </Text>
          ))}
        </Group>
        {a.error_message && (
          <Text size="sm" c="var(--mantine-color-error)" style={{ overflowWrap: 'anywhere' }}>
            {a.error_message}
          </Text>
        )}
        {a.redirects.length > 0 && (
          <List size="sm" spacing={2} aria-label={`Redirects of attempt ${a.number}`}>
            {a.redirects.map((r, i) => (
              <List.Item key={i} style={{ overflowWrap: 'anywhere' }}>
                {r.status} → {r.location}
              </List.Item>
            ))}
          </List>
        )}
        {response ? (
          <JsonBlock value={response} label={`Response of attempt ${a.number}`} maxHeight={160} />
        ) : (
          <Text size="xs" c="dimmed">
            No response arrived.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** A delivery's record, its workflow in Temporal, every attempt (oldest first) and Redeliver (writers). */
export function DeliveryDetail({
  webhookId,
  deliveryId,
  temporalUi,
}: {
  webhookId: string;
  deliveryId: string;
  temporalUi: string | null;
}) {
  const one = useDelivery(webhookId, deliveryId);
  const { canWrite } = useCurrent();
  const redeliver = useRedeliver();
  const run = () =>
    redeliver.mutate(
      { id: webhookId, deliveryId },
      {
        // A delivery still being delivered answers 409 delivery_in_progress: a notice, not a failure of the page.
        onError: (e) =>
          toast(
            e instanceof ApiError && e.code === 'delivery_in_progress'
              ? `Still being delivered: ${e.message}`
              : `Could not redeliver: ${e.message}`,
            'red',
          ),
      },
    );
  const failed =
    redeliver.error instanceof ApiError && redeliver.error.code === 'delivery_in_progress' ? null : redeliver.error;
  return (
    <QueryState query={one} what="the delivery">
      {(d) => (
        <Stack gap="md">
          <Group gap="xs" wrap="wrap">
            <StatusBadge value={d.status} />
            <HttpStatus code={d.http_status} />
            <Text size="sm" c="dimmed">
              {d.event_type}
            </Text>
          </Group>
          {canWrite && (
            <Group gap="sm">
              <Button size="sm" loading={redeliver.isPending} onClick={run}>
                Redeliver
              </Button>
              <Text size="xs" c="dimmed">
                Sends the same body, with the same delivery id, as a new workflow.
              </Text>
            </Group>
          )}
          {failed && <ErrorState error={failed} title="Could not redeliver" />}
          <Facts
            items={[
              ['Delivery', d.id],
              [
                'Workflow',
                d.workflow_id ? (
                  <Group key="w" gap={4} wrap="nowrap" align="center">
                    <WorkflowLink temporalUi={temporalUi} workflowId={d.workflow_id} label={d.workflow_id} />
                    <CopyAction value={d.workflow_id} what="workflow id" />
                  </Group>
                ) : d.event_type === 'test' ? (
                  'none: a test is sent once, directly'
                ) : (
                  '—'
                ),
              ],
              ['Created', fmt.time(d.created_at)],
              ['Delivered', fmt.time(d.delivered_at)],
              ['Attempts', fmt.int(d.attempt_count)],
              ['Redeliveries', fmt.int(d.redeliveries)],
              ['Next retry', fmt.time(d.next_retry_at)],
              ['Last error', d.error_message ?? '—'],
              ...(d.dlq_at
                ? [
                    [
                      'Dead-lettered',
                      `${fmt.time(d.dlq_at)}${d.dlq_reason ? ` (${d.dlq_reason.replace(/_/g, ' ')})` : ''}`,
                    ] as [string, string],
                  ]
                : []),
            ]}
          />
          <Stack gap="xs">
            <Text fw={600} size="sm" component="h3" m={0}>
              Attempts, oldest first
            </Text>
            {d.attempts.length === 0 ? (
              <Text size="sm" c="dimmed">
                No attempt recorded yet: the workflow has not sent it. Follow it in Temporal, or Redeliver.
              </Text>
            ) : (
              <Stack gap="xs" component="ol" p={0} m={0} style={{ listStyle: 'none' }}>
                {d.attempts.map((a) => (
                  <AttemptCard key={`${a.number}-${a.started_at}`} a={a} />
                ))}
              </Stack>
            )}
          </Stack>
        </Stack>
      )}
    </QueryState>
  );
}
