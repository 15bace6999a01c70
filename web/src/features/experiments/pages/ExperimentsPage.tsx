import { Checkbox, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { Comparison } from '../components/Comparison';
import { useComparison, useExperiments } from '../hooks/useExperiments';

/** Experiments: pick 2 to 5 and compare them side by side, item by item, with regressions. */
export function ExperimentsPage() {
  const list = useExperiments();
  const [picked, setPicked] = useState<string[]>([]);
  const cmp = useComparison(picked);
  const toggle = (id: string, on: boolean) => setPicked((p) => (on ? [...p, id].slice(0, 5) : p.filter((i) => i !== id)));
  return (
    <Page title="Experiments" description="A dataset run through a prompt or model, scored by evaluators: compare runs to catch regressions.">
      <QueryState query={list} what="experiments" empty={{ title: 'No experiments yet', description: 'Start one with POST /api/v1/experiments (a dataset, a subject and evaluators).' }}>
        {(rows) => (
          <Paper withBorder p="md" component="fieldset" m={0}>
            <Text component="legend" fw={600} size="sm" px={4}>Compare 2–5 (the first picked is the baseline)</Text>
            <Stack gap="xs" mt="xs">
              {rows.map((x) => (
                <Checkbox
                  key={x.id} checked={picked.includes(x.id)} onChange={(e) => toggle(x.id, e.currentTarget.checked)}
                  label={<>{x.name} <StatusBadge value={x.status} /> <Text span size="xs" c="dimmed">{fmt.time(x.created_at)} · {fmt.usd(x.cost_usd)}</Text></>}
                />
              ))}
            </Stack>
          </Paper>
        )}
      </QueryState>
      {picked.length >= 2 && <QueryState query={cmp} what="the comparison">{(c) => <Comparison cmp={c} />}</QueryState>}
    </Page>
  );
}
