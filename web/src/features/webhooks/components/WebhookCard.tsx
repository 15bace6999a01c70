import { Alert, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { ErrorState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useEnableWebhook } from '../hooks/useWebhooks';
import { AttemptLog } from './AttemptLog';
import { Deliveries } from './Deliveries';
import { Recover } from './Recover';
import { previousValidUntil, RotateSecret } from './RotateSecret';
import { WebhookForm } from './WebhookForm';

type Webhook = Schema<'Webhook'>;
export type Panel = 'deliveries' | 'attempts' | 'recover' | 'edit' | 'rotate';

/** "5 minutes ago", "2 hours ago", "3 days ago". */
function ago(iso: string | null): string {
  const s = Math.max(0, (Date.now() - Date.parse(iso ?? '')) / 1000);
  if (Number.isNaN(s)) return '';
  const [n, unit] =
    s < 3600
      ? [Math.floor(s / 60), 'minute']
      : s < 86_400
        ? [Math.floor(s / 3600), 'hour']
        : [Math.floor(s / 86_400), 'day'];
  return n < 1 ? 'just now' : `${fmt.count(n, unit)} ago`;
}

/** Disabled by the service after its deliveries kept failing: since when, and (writers) Enable again. */
function DisabledNotice({ w }: { w: Webhook }) {
  const { canWrite } = useCurrent();
  const enable = useEnableWebhook();
  return (
    <Alert
      color="red"
      variant="light"
      mt="sm"
      icon={<IconAlertTriangle aria-hidden />}
      data-testid="disabled-notice"
      title={`Disabled automatically ${ago(w.disabled_at)} (${fmt.time(w.disabled_at)})`}
    >
      <Stack gap="xs">
        <Text size="sm">
          Its deliveries kept failing (dead-lettered in a row for days), so no new ones are made.
          {canWrite
            ? ' Fix the receiver, then enable it again: the count starts afresh.'
            : ' An editor or admin can enable it again.'}
        </Text>
        {enable.error && <ErrorState error={enable.error} title="Could not enable the webhook" />}
        {canWrite && (
          <Group>
            <Button size="xs" color="red.9" loading={enable.isPending} onClick={() => enable.mutate(w.id)}>
              Enable again
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

/** The state in one badge: active, paused by someone, or disabled by the service. */
function State({ w }: { w: Webhook }) {
  if (w.disabled_reason === 'failing') {
    return (
      <Badge variant="filled" color="red.9" radius="sm" tt="none" fw={600}>
        disabled: failing
      </Badge>
    );
  }
  return <StatusBadge value={w.is_active ? 'active' : 'paused'} />;
}

interface CardActions {
  open: Panel | null;
  toggle: (panel: Panel) => void;
  close: () => void;
  temporalUi: string | null;
  testing: boolean;
  sendTest: () => void;
  pause: () => void;
  remove: () => void;
}

/** One webhook: its state, what it sends where, its actions, and the one panel open under it. */
export function WebhookCard({ w, a }: { w: Webhook; a: CardActions }) {
  const { canWrite } = useCurrent();
  const disabled = w.disabled_reason === 'failing';
  const previous = previousValidUntil(w);
  const button = (panel: Panel, label: string) => (
    <Button size="xs" variant="default" aria-expanded={a.open === panel} onClick={() => a.toggle(panel)}>
      {label}
    </Button>
  );
  return (
    <Paper withBorder p="md" component="li" aria-label={`Webhook ${w.name}`}>
      <Group justify="space-between" wrap="wrap" gap="sm" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0, flex: '1 1 320px' }}>
          <Group gap="xs">
            <Title order={2} size="h5">
              {w.name}
            </Title>
            <State w={w} />
          </Group>
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {w.url} · {w.events.join(', ')}
          </Text>
          <Text size="xs" c="dimmed" data-testid="webhook-secret">
            Secret <code>{w.secret}</code>
            {previous && <> · previous secret valid until {fmt.time(previous)}</>}
            {w.header_names.length > 0 && <> · headers: {w.header_names.join(', ')}</>}
          </Text>
        </Stack>
        <Group gap="xs">
          {canWrite && (
            <Button size="xs" variant="default" loading={a.testing} onClick={a.sendTest}>
              Send test
            </Button>
          )}
          {canWrite && button('edit', 'Edit')}
          {canWrite && button('rotate', 'Rotate secret')}
          {canWrite && !disabled && (
            <Button size="xs" variant="default" onClick={a.pause}>
              {w.is_active ? 'Pause' : 'Resume'}
            </Button>
          )}
          {button('deliveries', 'Deliveries')}
          {button('attempts', 'Attempt log')}
          {button('recover', 'Recoveries')}
          {canWrite && (
            <ConfirmButton
              title="Delete the webhook?"
              message={`“${w.name}” stops receiving events.`}
              onConfirm={a.remove}
            >
              Delete
            </ConfirmButton>
          )}
        </Group>
      </Group>
      {disabled && <DisabledNotice w={w} />}
      {a.open === 'edit' && (
        <Stack mt="sm">
          <WebhookForm key={w.updated_at} webhook={w} onDone={a.close} />
        </Stack>
      )}
      {a.open === 'rotate' && (
        <Stack mt="sm">
          <RotateSecret webhook={w} onDone={a.close} />
        </Stack>
      )}
      {a.open === 'deliveries' && (
        <Stack mt="sm">
          <Deliveries id={w.id} temporalUi={a.temporalUi} />
        </Stack>
      )}
      {a.open === 'attempts' && (
        <Stack mt="sm">
          <AttemptLog webhookId={w.id} temporalUi={a.temporalUi} />
        </Stack>
      )}
      {a.open === 'recover' && (
        <Stack mt="sm">
          <Recover webhookId={w.id} temporalUi={a.temporalUi} />
        </Stack>
      )}
    </Paper>
  );
}
