import { Badge, Group, Stack, Text } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { Section } from '../../../components/Page';
import { ResponsiveTable } from '../../../components/RowCards';
import * as fmt from '../../../lib/format';
import { meanWithInterval, readAggregate, readDelta, scoreNames, separated, signed } from '../lib/aggregate';

type Cmp = Schema<'ExperimentComparison'>;
const cell = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '—')).slice(0, 200);
// The theme's text colours for tinted states: they pass AA in both themes.
const tone = (v: number | null, higherIsBetter: boolean) =>
  v === null || v === 0 ? 'dimmed' : `var(--mantine-color-${v > 0 === higherIsBetter ? 'green' : 'red'}-light-color)`;

/**
 * Aggregates with their 95 % intervals and deltas against the baseline, the items side by side, and the regressions.
 */
export function Comparison({ cmp }: { cmp: Cmp }) {
  const regressed = new Set(cmp.regressions.map((r) => `${r.item_id}:${r.experiment_id}`));
  const rows = cmp.experiments.map((x) => ({ ...x, agg: readAggregate(x.aggregate), d: readDelta(x.delta) }));
  const names = scoreNames(rows.map((r) => r.agg));
  const base = rows[0]?.agg;
  return (
    <Stack gap="xl">
      <Section title="Aggregates against the baseline">
        <Text size="xs" c="dimmed" mt={-6}>
          Mean score over items with its 95 % confidence interval [low, high]; deltas are against the baseline.
          “Significant” marks intervals that do not overlap the baseline’s.
        </Text>
        <ResponsiveTable
          caption="Aggregates"
          rows={rows}
          rowKey={(x) => x.id}
          minWidth={360 + 220 * names.length}
          columns={[
            {
              key: 'n',
              label: 'Experiment',
              card: 'title',
              render: (x) => (
                <Stack gap={0}>
                  <Text size="sm" fw={500}>
                    {x.name}
                  </Text>
                  {x.d ? null : (
                    <Text size="xs" c="dimmed">
                      baseline
                    </Text>
                  )}
                </Stack>
              ),
            },
            { key: 'i', label: 'Items', numeric: true, render: (x) => fmt.int(x.agg.items) },
            ...names.map((name) => ({
              key: `s:${name}`,
              label: `${name} (95 % CI)`,
              card: 'wide' as const,
              render: (x: (typeof rows)[number]) => {
                const s = x.agg.scores.find((y) => y.name === name);
                const delta = x.d?.scores.get(name) ?? null;
                return (
                  <Stack gap={2} data-testid={`score-${name}`}>
                    <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                      {meanWithInterval(s)}
                    </Text>
                    {x.d && (
                      <Group gap={6} wrap="nowrap">
                        <Text size="xs" c={tone(delta, true)} ff="monospace">
                          {signed(delta)}
                        </Text>
                        {separated(
                          base?.scores.find((y) => y.name === name),
                          s,
                        ) && (
                          <Badge
                            size="xs"
                            variant="light"
                            color={delta !== null && delta < 0 ? 'red' : 'green'}
                            tt="none"
                          >
                            significant
                          </Badge>
                        )}
                      </Group>
                    )}
                  </Stack>
                );
              },
            })),
            {
              key: 'c',
              label: 'Cost',
              numeric: true,
              render: (x) => (
                <Stack gap={2}>
                  <span>{fmt.usd(x.agg.costUsd)}</span>
                  {x.d && (
                    <Text size="xs" c={tone(x.d.costUsd, false)}>
                      {signed(x.d.costUsd, 6)}
                    </Text>
                  )}
                </Stack>
              ),
            },
            {
              key: 'l',
              label: 'Latency p50 / p95',
              numeric: true,
              render: (x) => (
                <Stack gap={2}>
                  <span style={{ whiteSpace: 'nowrap' }}>
                    {fmt.ms(x.agg.p50)} / {fmt.ms(x.agg.p95)}
                  </span>
                  {x.d && (
                    <Text size="xs" c={tone(x.d.p50, false)}>
                      {signed(x.d.p50, 0)} ms
                    </Text>
                  )}
                </Stack>
              ),
            },
            {
              key: 'e',
              label: 'Errors',
              numeric: true,
              render: (x) => (
                <Stack gap={2}>
                  <span>{fmt.int(x.agg.errors)}</span>
                  {x.d && (
                    <Text size="xs" c={tone(x.d.errors, false)}>
                      {signed(x.d.errors, 0)}
                    </Text>
                  )}
                </Stack>
              ),
            },
          ]}
        />
      </Section>
      <Section title={`Items side by side (${cmp.items.length})`}>
        <ResponsiveTable
          caption="Items side by side"
          rows={cmp.items.slice(0, 200)}
          rowKey={(it) => it.item_id}
          minWidth={260 * (cmp.experiments.length + 1)}
          columns={[
            { key: 'i', label: 'Item', card: 'title', render: (it) => it.item_id },
            ...cmp.experiments.map((x) => ({
              key: x.id,
              label: x.name,
              card: 'wide' as const,
              render: (it: Cmp['items'][number]) => {
                const run = it.runs[x.id];
                return (
                  <Stack gap={2}>
                    <Text
                      size="sm"
                      c={regressed.has(`${it.item_id}:${x.id}`) ? 'var(--mantine-color-red-light-color)' : undefined}
                    >
                      {run ? cell(run.outputs[0]) : '—'}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {Object.entries(run?.scores ?? {})
                        .map(([k, v]) => `${k} ${Math.round(v * 1000) / 1000}`)
                        .join(' · ')}
                    </Text>
                  </Stack>
                );
              },
            })),
          ]}
        />
      </Section>
      <Text>
        {fmt.count(cmp.regressions.length, 'regressed item')} (a score lower than the baseline’s on the same item, in
        red above).
      </Text>
    </Stack>
  );
}
