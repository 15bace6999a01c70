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
import { Recover } from '../components/Recover';
import { WebhookForm } from '../components/WebhookForm';
import { useDeleteWebhook, usePauseWebhook, useTestWebhook, useWebhooks } from '../hooks/useWebhooks';

/**
 * Webhooks: create (the secret once), edit, send a test, pause, delete; the deliveries linked to
 * Temporal, each with its attempts and Redeliver; recovering the failed ones of a time window.
 */
export function WebhooksPage() {
  const list = useWebhooks();
  const config = useUiConfig();
  const { canWrite } = useCurrent();
  // One panel open at a time under a webhook: its deliveries, its recoveries, or its editor.
  const [open, setOpen] = useState<{ id: string; panel: 'deliveries' | 'recover' | 'edit' } | null>(null);
  const is = (id: string, panel: 'deliveries' | 'recover' | 'edit') => open?.id === id && open.panel === panel;
  const toggle = (id: string, panel: 'deliveries' | 'recover' | 'edit') => setOpen(is(id, panel) ? null : { id, panel });
  const temporalUi = config.data?.temporal_ui_url ?? null;
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
                    {canWrite && <Button size="xs" variant="default" aria-expanded={is(w.id, 'edit')} onClick={() => toggle(w.id, 'edit')}>Edit</Button>}
                    {canWrite && <Button size="xs" variant="default" onClick={() => pause.mutate({ id: w.id, is_active: !w.is_active })}>{w.is_active ? 'Pause' : 'Resume'}</Button>}
                    <Button size="xs" variant="default" aria-expanded={is(w.id, 'deliveries')} onClick={() => toggle(w.id, 'deliveries')}>Deliveries</Button>
                    <Button size="xs" variant="default" aria-expanded={is(w.id, 'recover')} onClick={() => toggle(w.id, 'recover')}>Recoveries</Button>
                    {canWrite && <ConfirmButton title="Delete the webhook?" message={`“${w.name}” stops receiving events.`} onConfirm={() => remove.mutate(w.id)}>Delete</ConfirmButton>}
                  </Group>
                </Group>
                {is(w.id, 'edit') && <Stack mt="sm"><WebhookForm key={w.updated_at} webhook={w} onDone={() => setOpen(null)} /></Stack>}
                {is(w.id, 'deliveries') && <Stack mt="sm"><Deliveries id={w.id} temporalUi={temporalUi} /></Stack>}
                {is(w.id, 'recover') && <Stack mt="sm"><Recover webhookId={w.id} temporalUi={temporalUi} /></Stack>}
              </Paper>
            ))}
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}
