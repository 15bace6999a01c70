import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { useCurrent } from '../../../app/current';
import { Chart, type Series } from '../../../components/Chart';
import { Facts } from '../../../components/Facts';
import { AppLink } from '../../../components/Links';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useAnomaly, useSetAnomalyStatus } from '../hooks/useAnomalies';
import { chartUnit, dimensionFilter, measureName, value, where, type Anomaly } from '../lib';
import { AnomalySeries } from './AnomalySeries';

/**
 * The evidence: the expected band (low, median, high of the seasonal baseline) against what was
 * observed over the anomaly's window. Error rates are drawn in percent.
 */
function Evidence({ a }: { a: Anomaly }) {
  const scale = a.measure === 'error_rate' ? 100 : 1;
  const { x, series } = useMemo(() => {
    const x = [a.window.start, a.window.end];
    const flat = (v: number) => [v * scale, v * scale];
    const series: Series[] = [
      { label: 'Observed', values: flat(a.observed), color: a.direction === 'up' ? '#e03131' : '#1971c2' },
      { label: 'Expected high', values: flat(a.expected.high), color: '#868e96', dash: [6, 4] },
      { label: 'Expected median', values: flat(a.expected.median), color: '#12b886', dash: [2, 3] },
      { label: 'Expected low', values: flat(a.expected.low), color: '#868e96', dash: [6, 4] },
    ];
    return { x, series };
  }, [a, scale]);
  return (
    <Chart
      title={`${measureName(a.measure)}${a.measure === 'error_rate' ? ' (%)' : ''}: observed against the expected band`}
      unit={chartUnit(a.measure)}
      x={x}
      series={series}
      height={220}
    />
  );
}

/** One anomaly: its evidence chart, the facts of its detection, and acknowledge or resolve (writers). */
export function AnomalyDetail({ id }: { id: string }) {
  const one = useAnomaly(id);
  const { canWrite } = useCurrent();
  const set = useSetAnomalyStatus();
  return (
    <QueryState query={one} what="the anomaly">
      {(a) => (
        <Stack gap="md">
          <Group gap="xs">
            <StatusBadge value={a.status} />
            <Text size="sm" c="dimmed">
              {measureName(a.measure)} {a.direction === 'up' ? 'above' : 'below'} its band, {where(a)}
            </Text>
          </Group>
          {canWrite && a.status !== 'resolved' && (
            <Group gap="sm">
              {a.status === 'open' && (
                <Button
                  size="sm"
                  variant="default"
                  loading={set.isPending && set.variables?.status === 'acknowledged'}
                  onClick={() => set.mutate({ id: a.id, status: 'acknowledged' })}
                >
                  Acknowledge
                </Button>
              )}
              <Button
                size="sm"
                loading={set.isPending && set.variables?.status === 'resolved'}
                onClick={() => set.mutate({ id: a.id, status: 'resolved' })}
              >
                Resolve
              </Button>
            </Group>
          )}
          {set.error && <ErrorState error={set.error} title="Could not change the anomaly" />}
          {a.status === 'resolved' && (
            <Alert variant="light" color="green" title="Resolved">
              Resolved {fmt.time(a.resolved_at)}
              {a.resolved_by ? ` by ${a.resolved_by}` : ''}. A new departure opens a new anomaly.
            </Alert>
          )}
          <Evidence a={a} />
          <AnomalySeries a={a} />
          <Facts
            items={[
              ['Observed', value(a.measure, a.observed)],
              [
                'Expected',
                `${value(a.measure, a.expected.low)} – ${value(a.measure, a.expected.high)} ` +
                  `(median ${value(a.measure, a.expected.median)})`,
              ],
              ['Score', a.score.toFixed(1)],
              ['Window', `${fmt.time(a.window.start)} – ${fmt.time(a.window.end)}`],
              [
                'Baseline',
                `${fmt.count(a.baseline.points, 'point')}${a.baseline.seasonal ? ', seasonal' : ''}, ` +
                  `${fmt.time(a.baseline.from)} – ${fmt.time(a.baseline.to)}`,
              ],
              ['Detections', fmt.int(a.detections)],
              ['First seen', fmt.time(a.first_seen)],
              ['Last seen', fmt.time(a.last_seen)],
              [
                'Acknowledged',
                a.acknowledged_at
                  ? `${fmt.time(a.acknowledged_at)}${a.acknowledged_by ? ` by ${a.acknowledged_by}` : ''}`
                  : '—',
              ],
            ]}
          />
          <Stack gap={4}>
            <Text fw={600} size="sm" component="h3" m={0}>
              Sample requests
            </Text>
            {a.sample_request_ids.length === 0 ? (
              <Text size="sm" c="dimmed">
                No sample requests were kept for this window:{' '}
                <AppLink to="/requests" search={dimensionFilter(a)} size="sm" underline="always">
                  open the request log{a.dimension === 'project' ? '' : ` for ${where(a)}`}
                </AppLink>
                .
              </Text>
            ) : (
              <Group gap="xs">
                {a.sample_request_ids.slice(0, 10).map((r) => (
                  <AppLink key={r} to="/requests/$id" params={{ id: r }} size="sm">
                    <Code>{r.slice(0, 8)}</Code>
                  </AppLink>
                ))}
              </Group>
            )}
          </Stack>
        </Stack>
      )}
    </QueryState>
  );
}
