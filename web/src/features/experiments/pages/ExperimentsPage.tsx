import { Button, Checkbox, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { ShareButton } from '../../../components/ShareButton';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { CancelRun } from '../components/CancelRun';
import { Comparison } from '../components/Comparison';
import { PromptExperiments } from '../components/PromptExperiments';
import { StartExperiment } from '../components/StartExperiment';
import { useComparison, useExperiments } from '../hooks/useExperiments';

/** One experiment in the list: its progress moves while it runs (the list is polled). */
function Row({ x, picked, onPick }: { x: Schema<'Experiment'>; picked: boolean; onPick: (on: boolean) => void }) {
  const total = x.counts.pending + x.counts.completed + x.counts.error;
  const done = x.counts.completed + x.counts.error;
  const scores = x.scores
    .map((s) => `${s.name} ${s.mean === null ? '—' : Math.round(s.mean * 1000) / 1000}`)
    .join(' · ');
  return (
    <Group
      gap="sm"
      wrap="wrap"
      data-testid={`experiment-${x.name}`}
      py={4}
      style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
    >
      <Checkbox
        checked={picked}
        onChange={(e) => onPick(e.currentTarget.checked)}
        label={x.name}
        miw={160}
        style={{ flex: '1 1 160px' }}
      />
      <StatusBadge value={x.status} />
      <ButtonLink
        to="/experiments/$id"
        params={{ id: x.id }}
        size="compact-sm"
        variant="default"
        aria-label={`Results of ${x.name}`}
      >
        Results
      </ButtonLink>
      <CancelRun kind="experiment" id={x.id} name={x.name} status={x.status} />
      <Group gap={6} wrap="nowrap" style={{ flex: '1 1 200px' }}>
        <Progress
          value={total ? (done / total) * 100 : 0}
          size="sm"
          w={120}
          aria-label={`Progress of ${x.name}`}
          color={x.counts.error ? 'orange' : undefined}
        />
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {fmt.int(done)} / {fmt.int(total)} runs{x.counts.error ? ` · ${fmt.int(x.counts.error)} failed` : ''}
        </Text>
      </Group>
      <Text size="xs" c="dimmed" style={{ flex: '2 1 220px' }}>
        {scores || 'no scores yet'} · {fmt.usd(x.cost_usd)} · {fmt.time(x.created_at)}
      </Text>
      {x.error && (
        <Text size="xs" c="var(--mantine-color-error)" w="100%">
          {x.error}
        </Text>
      )}
    </Group>
  );
}

/**
 * Experiments: start one, follow it live, pick 2 to 5 and compare them with intervals, item by item, with regressions.
 */
export function ExperimentsPage() {
  const list = useExperiments();
  const [picked, setPicked] = useState<string[]>([]);
  const [starting, setStarting] = useState(false);
  const cmp = useComparison(picked);
  const { canWrite } = useCurrent();
  // Experiments of different projects cannot be compared: the baseline's project is the comparison's.
  const projectId = list.data?.find((x) => x.id === picked[0])?.project_id;
  const toggle = (id: string, on: boolean) =>
    setPicked((p) => (on ? [...p, id].slice(0, 5) : p.filter((i) => i !== id)));
  const startButton = (
    <Button leftSection={<IconPlayerPlay size={16} />} onClick={() => setStarting(true)}>
      New experiment
    </Button>
  );
  return (
    <Page
      title="Experiments"
      description="A dataset run through a prompt or model, scored by evaluators: compare runs to catch regressions."
      actions={startButton}
    >
      <StartExperiment opened={starting} onClose={() => setStarting(false)} />
      <QueryState
        query={list}
        what="experiments"
        empty={{
          title: 'No experiments yet',
          description: 'Run a dataset through a prompt version or a model, scored by your evaluators.',
          action: startButton,
        }}
      >
        {(rows) => (
          <Paper withBorder p="md" component="fieldset" m={0}>
            <Text component="legend" fw={600} size="sm" px={4}>
              Compare 2–5 (the first picked is the baseline)
            </Text>
            <Stack gap={0} mt="xs">
              {rows.map((x) => (
                <Row key={x.id} x={x} picked={picked.includes(x.id)} onPick={(on) => toggle(x.id, on)} />
              ))}
            </Stack>
          </Paper>
        )}
      </QueryState>
      {picked.length >= 2 && (
        <QueryState query={cmp} what="the comparison">
          {(c) => (
            <Stack gap="md">
              {canWrite && projectId && (
                <Stack gap={6}>
                  <Text size="sm" c="dimmed">
                    A read-only link to this comparison, {c.experiments[0]?.name ?? 'the first'} as the baseline:
                  </Text>
                  <ShareButton
                    key={picked.join(',')}
                    type="experiment_comparison"
                    id={picked.join(',')}
                    projectId={projectId}
                  />
                </Stack>
              )}
              <Comparison cmp={c} />
            </Stack>
          )}
        </QueryState>
      )}
      <PromptExperiments />
    </Page>
  );
}
