import { Code, Stack, Text } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';

type Cmp = Schema<'ExperimentComparison'>;
const cell = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '—').slice(0, 200);

/** Aggregates with deltas against the baseline, the items side by side, and the regressions. */
export function Comparison({ cmp }: { cmp: Cmp }) {
  const regressed = new Set(cmp.regressions.map((r) => `${r.item_id}:${r.experiment_id}`));
  return (
    <Stack gap="xl">
      <Section title="Aggregates and deltas against the baseline">
        <DataTable caption="Aggregates" rows={cmp.experiments} rowKey={(x) => x.id} columns={[
          { key: 'n', label: 'Experiment', render: (x) => x.name },
          { key: 'a', label: 'Aggregate', render: (x) => <Code>{JSON.stringify(x.aggregate)}</Code> },
          { key: 'd', label: 'Delta', render: (x) => (x.delta ? <Code>{JSON.stringify(x.delta)}</Code> : <Text size="sm" c="dimmed">baseline</Text>) },
        ]} />
      </Section>
      <Section title={`Items side by side (${cmp.items.length})`}>
        <DataTable caption="Items side by side" rows={cmp.items.slice(0, 200)} rowKey={(it) => it.item_id} minWidth={260 * (cmp.experiments.length + 1)} columns={[
          { key: 'i', label: 'Item', render: (it) => it.item_id },
          ...cmp.experiments.map((x) => ({
            key: x.id, label: x.name,
            render: (it: Cmp['items'][number]) => {
              const run = it.runs[x.id];
              return (
                <Stack gap={2}>
                  <Text size="sm" c={regressed.has(`${it.item_id}:${x.id}`) ? 'red.9' : undefined}>{run ? cell(run.outputs[0]) : '—'}</Text>
                  <Text size="xs" c="dimmed">{Object.entries(run?.scores ?? {}).map(([k, v]) => `${k} ${v}`).join(' · ')}</Text>
                </Stack>
              );
            },
          })),
        ]} />
      </Section>
      <Text>{cmp.regressions.length} regressed item{cmp.regressions.length === 1 ? '' : 's'}.</Text>
    </Stack>
  );
}
