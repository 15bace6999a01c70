import { Alert, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useCurrent } from '../../../app/current';
import { Facts } from '../../../components/Facts';
import { JsonBlock } from '../../../components/Json';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useDismissRecommendation, useRecommendation } from '../hooks/useRecommendations';

/** An evidence value as read: money, shares and counts by their key's name; nested values as JSON. */
function show(key: string, v: unknown): ReactNode {
  if (typeof v === 'number') {
    if (/usd|cost|saving|spend/.test(key)) return fmt.usd(v);
    if (/rate|share|ratio|fraction|pct/.test(key) && v <= 1) return fmt.pct(v);
    if (/_ms$|latency/.test(key)) return fmt.ms(v);
    return Number.isInteger(v) ? fmt.int(v) : v.toLocaleString(undefined, { maximumFractionDigits: 4 });
  }
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '—';
  return <JsonBlock value={v} label={key.replace(/_/g, ' ')} maxHeight={200} />;
}

/** One recommendation: what to do, the saving, the evidence it was computed from, and dismiss (writers). */
export function RecommendationDetail({ id }: { id: string }) {
  const one = useRecommendation(id);
  const { canWrite } = useCurrent();
  const dismiss = useDismissRecommendation();
  return (
    <QueryState query={one} what="the recommendation">
      {(r) => {
        const evidence = Object.entries(r.evidence);
        return (
          <Stack gap="md">
            <Group gap="xs">
              <StatusBadge value={r.status} />
              <Badge variant="outline" color="gray" radius="sm" tt="none">
                {r.kind.replace(/_/g, ' ')}
              </Badge>
            </Group>
            <Stack gap={4}>
              <Text fw={600}>{r.title}</Text>
              <Text size="sm">{r.detail}</Text>
            </Stack>
            <Paper withBorder p="md">
              <Text size="sm" c="dimmed">
                Estimated saving per month
              </Text>
              <Text fz={28} fw={650} lh={1.2}>
                {fmt.usd(r.monthly_saving_usd)}
              </Text>
            </Paper>
            {canWrite && r.status === 'open' && (
              <Group gap="sm">
                <Button size="sm" variant="default" loading={dismiss.isPending} onClick={() => dismiss.mutate(r.id)}>
                  Dismiss
                </Button>
                <Text size="xs" c="dimmed">
                  It comes back only if its saving doubles.
                </Text>
              </Group>
            )}
            {dismiss.error && <ErrorState error={dismiss.error} title="Could not dismiss the recommendation" />}
            {r.status === 'dismissed' && (
              <Alert variant="light" color="gray" title="Dismissed">
                Dismissed {fmt.time(r.dismissed_at)}
                {r.dismissed_by ? ` by ${r.dismissed_by}` : ''}; it comes back if its saving doubles.
              </Alert>
            )}
            <Stack gap={4}>
              <Text fw={600} size="sm" component="h3" m={0}>
                Evidence
              </Text>
              {evidence.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No evidence was recorded with this recommendation; it is recomputed daily from the request log.
                </Text>
              ) : (
                <Facts items={evidence.map(([k, v]) => [k.replace(/_usd$/, '').replace(/_/g, ' '), show(k, v)])} />
              )}
            </Stack>
            <Facts
              items={[
                ['Subject', r.subject],
                ['Computed', fmt.time(r.computed_at)],
              ]}
            />
          </Stack>
        );
      }}
    </QueryState>
  );
}
