import { Stack, Text } from '@mantine/core';
import { Facts, Kpis } from '../../../components/Facts';
import { Section } from '../../../components/Page';
import * as fmt from '../../../lib/format';
import type { StatsView } from '../lib/read';

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

/** A shared stats view: its range, the headline figures in cards, then every other total. */
export function SharedStats({ stats }: { stats: StatsView }) {
  const head = HEADLINE.flatMap((k) => stats.figures.filter((f) => f.key === k));
  const rest = stats.figures.filter((f) => !head.includes(f));
  return (
    <Stack gap="lg">
      <Text size="sm" c="dimmed">
        {stats.view.charAt(0).toUpperCase() + stats.view.slice(1)} from {fmt.time(stats.from)} to {fmt.time(stats.to)},
        as they are now.
      </Text>
      {head.length > 0 && <Kpis items={head.map((f) => [f.label, f.value])} />}
      {rest.length > 0 && (
        <Section title="Every total">
          <Facts items={rest.map((f) => [f.label, f.value])} />
        </Section>
      )}
    </Stack>
  );
}
