import { Badge, Group, Input, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Got } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useWebhookStats } from '../hooks/useAttempts';
import { HEALTH_WINDOWS, type HealthWindow } from '../search';
import classes from './Health.module.css';

type Stats = Got<'/api/v1/webhooks/{id}/stats'>;
const LABEL: Record<HealthWindow, string> = { '24h': '24 h', '7d': '7 d', '30d': '30 d' };
const STATUSES = [
  ['delivered', 'green'],
  ['dead_lettered', 'red'],
  ['failed', 'orange'],
  ['pending', 'blue'],
  ['cancelled', 'gray'],
] as const;

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className={classes.fact}>
      <Text component="dt" size="xs" c="dimmed">
        {term}
      </Text>
      <Text component="dd" size="sm" fw={600}>
        {children}
      </Text>
    </div>
  );
}

/** The numbers of `/stats` in one line: what a glance at an endpoint's health needs. */
function Numbers({ s }: { s: Stats }) {
  const counts = STATUSES.filter(([k]) => s.deliveries[k] > 0);
  return (
    <dl className={classes.row} data-testid="webhook-health">
      <Fact term="Success rate">{fmt.pct(s.success_rate)}</Fact>
      <Fact term="Deliveries">{fmt.int(s.deliveries.total)}</Fact>
      <Fact term="By status">
        {counts.length === 0 ? (
          'none'
        ) : (
          <Group gap={4} component="span">
            {counts.map(([k, color]) => (
              <Badge key={k} variant="light" color={color} radius="sm" tt="none" fw={600}>
                {fmt.int(s.deliveries[k])} {k.replace('_', ' ')}
              </Badge>
            ))}
          </Group>
        )}
      </Fact>
      <Fact term="Attempts">
        {fmt.int(s.attempts)}
        {s.attempts_per_delivery !== null && ` (${s.attempts_per_delivery.toFixed(1)} per delivery)`}
      </Fact>
      <Fact term="p50 latency">{fmt.ms(s.duration_ms.p50)}</Fact>
      <Fact term="p95 latency">{fmt.ms(s.duration_ms.p95)}</Fact>
    </dl>
  );
}

/** Endpoint health over a window the user picks (kept in the URL as `health`). */
export function Health({
  webhookId,
  window,
  onWindow,
}: {
  webhookId: string;
  window: HealthWindow;
  onWindow: (w: HealthWindow) => void;
}) {
  const stats = useWebhookStats(webhookId, window);
  const labelId = `health-${webhookId}`;
  return (
    <Paper withBorder p="sm" radius="md">
      <Stack gap="xs">
        <Group gap="sm" wrap="wrap">
          <Input.Label component="div" id={labelId}>
            Health of deliveries created in the last
          </Input.Label>
          <SegmentedControl
            size="xs"
            aria-labelledby={labelId}
            value={window}
            onChange={(v) => onWindow(HEALTH_WINDOWS.find((w) => w === v) ?? '24h')}
            data={HEALTH_WINDOWS.map((w) => ({ value: w, label: LABEL[w] }))}
          />
        </Group>
        {stats.error ? (
          <ErrorState error={stats.error} title="Could not load the health figures" />
        ) : stats.data ? (
          <Numbers s={stats.data} />
        ) : (
          <Text size="sm" c="dimmed">
            Loading…
          </Text>
        )}
        {stats.data && stats.data.success_rate === null && stats.data.deliveries.total > 0 && (
          <Text size="xs" c="dimmed">
            No delivery of this window has finished yet (delivered or dead-lettered), so there is no success rate.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
