import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { ResponsiveTable } from '../../../components/RowCards';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { usePromptExperiments } from '../hooks/useExperiments';
import { CancelRun } from './CancelRun';
import { StartPromptExperiment } from './StartPromptExperiment';

type Grid = Schema<'PromptExperiment'>;
const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '—')).slice(0, 160);
const r3 = (v: number | null) => (v === null ? '—' : String(Math.round(v * 1000) / 1000));

/** One prompt experiment: its variants with scores and cost, the winner per score, and items × variants. */
function GridView({ g }: { g: Grid }) {
  return (
    // On a phone the tables inside are cards: a narrower frame leaves them the width.
    <Paper withBorder p={{ base: 'sm', sm: 'md' }} data-testid={`prompt-experiment-${g.name}`}>
      <Stack gap="sm">
        <Group gap="sm" wrap="wrap">
          <Title order={3} size="h5">
            {g.name}
          </Title>
          <StatusBadge value={g.status} />
          <CancelRun kind="prompt experiment" id={g.id} name={g.name} status={g.status} />
          <Text size="xs" c="dimmed">
            {fmt.time(g.created_at)}
          </Text>
          {g.winners.map((w) => (
            <Badge key={w.name} variant="light" color="green" tt="none" data-testid="winner">
              {w.name}: {w.label} wins ({r3(w.mean)})
            </Badge>
          ))}
        </Group>
        <ResponsiveTable
          caption={`Variants of ${g.name}`}
          rows={g.variants}
          rowKey={(x) => String(x.index)}
          minWidth={520}
          columns={[
            { key: 'l', label: 'Variant', card: 'title', render: (x) => x.label },
            { key: 's', label: 'Status', render: (x) => <StatusBadge value={x.status} /> },
            {
              key: 'm',
              label: 'Mean scores',
              render: (x) => x.scores.map((s) => `${s.name} ${r3(s.mean)}`).join(' · ') || '—',
            },
            { key: 'c', label: 'Cost', numeric: true, render: (x) => fmt.usd(x.cost_usd) },
            { key: 'p', label: 'Latency p50', numeric: true, render: (x) => fmt.ms(x.latency_p50_ms) },
          ]}
        />
        <ResponsiveTable
          caption={`Items by variant of ${g.name}`}
          rows={g.rows.slice(0, 50)}
          rowKey={(r) => r.item_id}
          minWidth={240 * (g.variants.length + 1)}
          columns={[
            {
              key: 'i',
              label: 'Item',
              card: 'title',
              render: (r) => (
                <Stack gap={0}>
                  <Text size="sm">{text(r.input)}</Text>
                  <Text size="xs" c="dimmed">
                    expected {text(r.expected_output)}
                  </Text>
                </Stack>
              ),
            },
            ...g.variants.map((x, i) => ({
              key: `v${x.index}`,
              label: x.label,
              card: 'wide' as const,
              render: (r: Grid['rows'][number]) => {
                const cell = r.cells[i];
                return (
                  <Stack gap={0}>
                    <Text size="sm">{cell?.outputs.length ? text(cell.outputs[0]) : '—'}</Text>
                    <Text size="xs" c="dimmed">
                      {Object.entries(cell?.scores ?? {})
                        .map(([k, v]) => `${k} ${r3(v)}`)
                        .join(' · ')}
                    </Text>
                  </Stack>
                );
              },
            })),
          ]}
        />
        {g.rows.length > 50 && (
          <Text size="xs" c="dimmed">
            The first 50 of {fmt.int(g.rows.length)} items.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** Prompt experiments: several prompt versions over the same items, compared cell by cell. */
export function PromptExperiments() {
  const list = usePromptExperiments();
  const [starting, setStarting] = useState(false);
  const button = (
    <Button variant="default" leftSection={<IconPlayerPlay size={16} aria-hidden />} onClick={() => setStarting(true)}>
      New prompt experiment
    </Button>
  );
  return (
    <Section title="Prompt experiments" actions={button}>
      <StartPromptExperiment opened={starting} onClose={() => setStarting(false)} />
      <QueryState
        query={list}
        what="prompt experiments"
        empty={{
          title: 'No prompt experiments yet',
          description: 'Run two or more prompt versions over the same dataset items and see which wins.',
        }}
      >
        {(rows) => (
          <Stack gap="md">
            {rows.map((g) => (
              <GridView key={g.id} g={g} />
            ))}
          </Stack>
        )}
      </QueryState>
    </Section>
  );
}
