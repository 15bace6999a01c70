import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { Page } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { toast } from '../../../lib/toast';
import { useUiConfig } from '../../auth/useUiConfig';
import { Deliveries } from '../components/Deliveries';
import { WebhookForm } from '../components/WebhookForm';
import { useDeleteWebhook, usePauseWebhook, useTestWebhook, useWebhooks } from '../hooks/useWebhooks';

/** Webhooks: create (the secret once), send a test, pause, delete, and the deliveries linked to Temporal. */
export function WebhooksPage() {
  const list = useWebhooks();
  const config = useUiConfig();
  const { canWrite } = useCurrent();
  const [open, setOpen] = useState<string | null>(null);
  const test = useTestWebhook();
  const pause = usePauseWebhook();
  const remove = useDeleteWebhook();
  const failed = test.error ?? pause.error ?? remove.error;
  const sendTest = (id: string) =>
    test.mutate(id, { onSuccess: (r) => toast(`Test ${r.status}${r.http_status ? ` (HTTP ${r.http_status})` : ''}${r.error_message ? `: ${r.error_message}` : ''}`, r.status === 'delivered' ? 'green' : 'red') });
  return (
    <Page title="Webhooks" description="Signed HTTPS callbacks on events; every delivery is a durable Temporal workflow with retries.">
      {canWrite && <WebhookForm />}
      {failed && <ErrorState error={failed} title="Could not change the webhook" />}
      <QueryState query={list} what="webhooks" empty={{ title: 'No webhooks yet', description: canWrite ? 'Create one above to be told about new calls, finished traces or alerts.' : 'An editor or admin can create them.' }}>
        {(hooks) => (
          <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
            {hooks.map((w) => (
              <Paper key={w.id} withBorder p="md" component="li">
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <div style={{ minWidth: 0 }}>
                    <Group gap="xs"><Title order={2} size="h5">{w.name}</Title><StatusBadge value={w.is_active ? 'active' : 'paused'} /></Group>
                    <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>{w.url} · {w.events.join(', ')}</Text>
                  </div>
                  <Group gap="xs">
                    {canWrite && <Button size="xs" variant="default" loading={test.isPending && test.variables === w.id} onClick={() => sendTest(w.id)}>Send test</Button>}
                    {canWrite && <Button size="xs" variant="default" onClick={() => pause.mutate({ id: w.id, is_active: !w.is_active })}>{w.is_active ? 'Pause' : 'Resume'}</Button>}
                    <Button size="xs" variant="default" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>Deliveries</Button>
                    {canWrite && <ConfirmButton title="Delete the webhook?" message={`“${w.name}” stops receiving events.`} onConfirm={() => remove.mutate(w.id)}>Delete</ConfirmButton>}
                  </Group>
                </Group>
                {open === w.id && <Stack mt="sm"><Deliveries id={w.id} temporalUi={config.data?.temporal_ui_url ?? null} /></Stack>}
              </Paper>
            ))}
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}
