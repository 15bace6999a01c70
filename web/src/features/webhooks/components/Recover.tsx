import { Button, Checkbox, Group, Loader, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useId } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useCancelRecovery, useRecover, useRecoveries, useRecovery } from '../hooks/useWebhooks';
import { WorkflowLink } from './WorkflowLink';

type Recovery = Schema<'WebhookRecovery'>;
type Status = Recovery['statuses'][number];
const STATUSES: { value: Status; label: string }[] = [
  { value: 'failed', label: 'failed' },
  { value: 'dead_lettered', label: 'dead-lettered' },
];

/** `YYYY-MM-DDTHH:mm` in the reader's zone, as a datetime-local input holds it. */
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** A recovery's counters and status, polled while it runs, with Cancel (writers). */
export function RecoveryProgress({
  webhookId,
  rid,
  temporalUi,
}: {
  webhookId: string;
  rid: string;
  temporalUi: string | null;
}) {
  const one = useRecovery(webhookId, rid);
  const cancel = useCancelRecovery();
  const { canWrite } = useCurrent();
  return (
    <QueryState query={one} what="the recovery">
      {(r) => (
        <Paper withBorder p="sm" className="recovery" aria-live="polite">
          <Stack gap="xs">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Group gap="xs">
                {r.status === 'running' && <Loader size="xs" aria-hidden="true" />}
                <StatusBadge value={r.status} />
                <Text size="sm">
                  {fmt.time(r.since)} – {fmt.time(r.until)} · {r.statuses.map((s) => s.replace('_', '-')).join(', ')}
                </Text>
              </Group>
              <Group gap="xs">
                <WorkflowLink temporalUi={temporalUi} workflowId={r.workflow_id} />
                {canWrite && r.status === 'running' && (
                  <Button
                    size="compact-sm"
                    variant="light"
                    color="red"
                    loading={cancel.isPending}
                    onClick={() => cancel.mutate({ id: webhookId, rid: r.id })}
                  >
                    Cancel recovery
                  </Button>
                )}
              </Group>
            </Group>
            <SimpleGrid component="dl" cols={{ base: 3, sm: 6 }} spacing="xs" m={0}>
              {(
                [
                  ['Taken up', r.matched],
                  ['Sent again', r.redelivered],
                  ['Delivered', r.delivered],
                  ['Failed', r.failed],
                  ['Skipped', r.skipped],
                ] as const
              ).map(([k, v]) => (
                <div key={k}>
                  <Text component="dt" size="xs" c="dimmed">
                    {k}
                  </Text>
                  <Text component="dd" m={0} fw={600}>
                    {fmt.int(v)}
                  </Text>
                </div>
              ))}
            </SimpleGrid>
            <Text size="xs" c="dimmed">
              {r.status === 'running'
                ? 'Running: refreshed every 2 s.'
                : r.finished_at
                  ? `Finished ${fmt.time(r.finished_at)}.`
                  : ''}
              {r.skipped > 0 && ' Skipped ones changed before their turn (a redelivery started meanwhile).'}
            </Text>
            {r.error && (
              <Text size="sm" c="red.8">
                {r.error}
              </Text>
            )}
            {cancel.error && <ErrorState error={cancel.error} title="Could not cancel the recovery" />}
          </Stack>
        </Paper>
      )}
    </QueryState>
  );
}

/**
 * "Recover failed deliveries since…": every failed or dead-lettered delivery created in the window
 * is sent once more by one workflow; its progress is polled while it runs. Past recoveries below.
 */
export function Recover({ webhookId, temporalUi }: { webhookId: string; temporalUi: string | null }) {
  const { canWrite } = useCurrent();
  const recover = useRecover();
  const recoveries = useRecoveries(webhookId);
  const uid = useId();
  const form = useForm<{ since: string; until: string; statuses: Status[] }>({
    initialValues: {
      since: local(new Date(Date.now() - 24 * 3_600_000)),
      until: '',
      statuses: ['failed', 'dead_lettered'],
    },
    validate: {
      since: (v) => (v && !Number.isNaN(Date.parse(v)) ? null : 'Pick a start'),
      until: (v, all) =>
        !v
          ? null
          : Number.isNaN(Date.parse(v))
            ? 'A date and time'
            : Date.parse(v) <= Date.parse(all.since)
              ? 'After the start'
              : null,
      statuses: (v) => (v.length ? null : 'Pick at least one'),
    },
  });
  const submit = form.onSubmit((v) =>
    recover.mutate({
      id: webhookId,
      body: {
        since: new Date(v.since).toISOString(),
        ...(v.until ? { until: new Date(v.until).toISOString() } : {}),
        statuses: v.statuses,
      },
    }),
  );
  return (
    <Stack gap="sm">
      {canWrite && (
        <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby={`${uid}-title`}>
          <Stack gap="sm">
            <Title order={3} size="h5" id={`${uid}-title`}>
              Recover failed deliveries since…
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <TextInput
                type="datetime-local"
                label="Since"
                description="created at or after"
                {...form.getInputProps('since')}
              />
              <TextInput
                type="datetime-local"
                label="Until"
                description="optional; default now"
                {...form.getInputProps('until')}
              />
            </SimpleGrid>
            <Checkbox.Group label="Deliveries that" {...form.getInputProps('statuses')}>
              <Group gap="md" mt={6}>
                {STATUSES.map((s) => (
                  <Checkbox key={s.value} value={s.value} label={s.label} />
                ))}
              </Group>
            </Checkbox.Group>
            {recover.error && <ErrorState error={recover.error} title="Could not start the recovery" />}
            <Group>
              <Button type="submit" loading={recover.isPending}>
                Recover deliveries
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}
      <QueryState
        query={recoveries}
        what="recoveries"
        empty={{
          title: 'No recoveries yet',
          description: canWrite
            ? 'After an outage of the receiver, recover what failed in that window: each is sent once more.'
            : 'An editor or admin can recover failed deliveries.',
        }}
      >
        {(rows) => (
          <Stack gap="xs">
            <Text fw={600} size="sm" component="h3" m={0}>
              Recoveries, newest first
            </Text>
            {rows.map((r) => (
              <RecoveryProgress key={r.id} webhookId={webhookId} rid={r.id} temporalUi={temporalUi} />
            ))}
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
