import { Group, Stack, Text, Title } from '@mantine/core';
import { Facts, Kpis } from '../../../components/Facts';
import { Section } from '../../../components/Page';
import * as fmt from '../../../lib/format';
import { conditions, type SharedFilter } from '../lib/conditions';
import type { StatsView } from '../lib/read';
import classes from './SharedStats.module.css';

// The headline figures of each stats view, in this order; the other totals follow as facts.
const HEADLINE = [
  'requests',
  'traces',
  'spans',
  'count',
  'cost_usd',
  'error_rate',
  'total_tokens',
  'latency_p50_ms',
  'latency_p95_ms',
  'average',
];

/** How a total reads: costs in dollars, durations in ms or s, rates as percentages, counts grouped. */
export const formatTotal = (key: string, v: number | null) =>
  key.endsWith('_usd')
    ? fmt.usd(v)
    : key.endsWith('_ms')
      ? fmt.ms(v)
      : key.endsWith('rate')
        ? fmt.pct(v)
        : v !== null && !Number.isInteger(v)
          ? String(Math.round(v * 1000) / 1000)
          : fmt.int(v);

/** The saved filter's conditions, each a pill (`Model gpt-4o-mini`); none: every call of the project. */
function Conditions({ filter }: { filter: SharedFilter['filter'] }) {
  const list = conditions(filter);
  if (list.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No conditions: every call of the project.
      </Text>
    );
  return (
    <Group component="ul" gap="xs" className={classes.conditions} aria-label="Filter conditions">
      {list.map((c) => (
        <li key={c.key} className={classes.condition}>
          <Text span size="sm" c="dimmed">
            {c.label}
          </Text>{' '}
          <Text span size="sm" fw={600}>
            {c.value}
          </Text>
        </li>
      ))}
    </Group>
  );
}

/**
 * A shared stats view: the saved filter's name and conditions (when the share names them), its
 * range, the headline figures in cards, then every other total.
 */
export function SharedStats({ stats, filter }: { stats: StatsView; filter?: SharedFilter | undefined }) {
  const head = HEADLINE.flatMap((k) => stats.figures.filter((f) => f.key === k));
  const rest = stats.figures.filter((f) => !head.includes(f));
  return (
    <Stack gap="lg">
      <Stack gap="xs">
        {filter && (
          <Title order={2} size="h3" style={{ overflowWrap: 'anywhere' }}>
            {filter.name}
          </Title>
        )}
        {filter && <Conditions filter={filter.filter} />}
        <Text size="sm" c="dimmed">
          {stats.view.charAt(0).toUpperCase() + stats.view.slice(1)} from {fmt.time(stats.from)} to {fmt.time(stats.to)}
          , as they are now.
        </Text>
      </Stack>
      {head.length > 0 && <Kpis items={head.map((f) => [f.label, f.value])} />}
      {rest.length > 0 && (
        <Section title="Every total">
          <Facts items={rest.map((f) => [f.label, f.value])} />
        </Section>
      )}
    </Stack>
  );
}
