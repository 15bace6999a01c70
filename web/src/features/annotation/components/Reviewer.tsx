import { Alert, Group, Kbd, Paper, Stack, Text, Title } from '@mantine/core';
import { useState, type KeyboardEvent } from 'react';
import type { Schema } from '../../../api/types';
import { JsonBlock } from '../../../components/Json';
import { EmptyView, ErrorState, QueryState } from '../../../components/QueryState';
import { useQueueActions, useQueueItem, useScoreConfigs, type Answer, type QueueItem } from '../hooks/useAnnotation';

type Config = Schema<'ScoreConfig'>;

/** Key n (1–9, 0 for false) → the score of the campaign's first config, or null if it does not fit. */
function answerFor(cfg: Config, n: number): Answer | null {
  if (cfg.data_type === 'categorical') {
    const c = cfg.categories?.[n - 1];
    return c ? { config_id: cfg.id, string_value: c.label } : null;
  }
  if (cfg.data_type === 'boolean') return n <= 1 ? { config_id: cfg.id, value: n } : null;
  if ((cfg.min !== null && n < cfg.min) || (cfg.max !== null && n > cfg.max)) return null;
  return { config_id: cfg.id, value: n };
}

/** One campaign's queue, driven by the keyboard: a number scores, s skips, r releases. */
export function Reviewer({ campaign, onReviewed }: { campaign: Schema<'HumanEval'>; onReviewed: () => void }) {
  const first = useQueueItem(campaign.id);
  const configs = useScoreConfigs(campaign.project_id);
  const { score, skip, release } = useQueueActions(campaign.id);
  // After the first item, each action answers the next one.
  const [next, setNext] = useState<QueueItem | undefined>(undefined);
  const item = next !== undefined ? next : first.data;
  const cfg = configs.data?.find((c) => c.id === campaign.score_config_ids[0]);
  const failed = score.error ?? skip.error ?? release.error;
  const [hint, setHint] = useState<string | null>(null);
  const key = (e: KeyboardEvent) => {
    if (!item || !cfg) return;
    if (/^[0-9]$/.test(e.key)) {
      const a = answerFor(cfg, Number(e.key));
      if (!a) return setHint(`${e.key} is not a value of “${cfg.name}”`);
      setHint(null);
      score.mutate({ target_key: item.target_key, scores: [a] }, { onSuccess: (n) => (setNext(n), onReviewed()) });
    }
    if (e.key === 's') skip.mutate(item.target_key, { onSuccess: setNext });
    if (e.key === 'r') release.mutate(item.target_key, { onSuccess: setNext });
  };
  return (
    <QueryState query={{ ...first, data: first.data === undefined ? undefined : item }} what="the queue">
      {(it) =>
        it === null ? (
          <EmptyView title="Nothing left for you in this campaign" description="Every item you can review has its scores. Pick another campaign." />
        ) : (
          <Paper withBorder p="lg" className="review" tabIndex={0} onKeyDown={key} aria-label="Item to review: press a number to score, s to skip, r to release" aria-busy={score.isPending || skip.isPending || release.isPending}>
            <Stack gap="sm">
              {it.human_eval.instructions && <Alert variant="light" color="indigo" title="Instructions">{it.human_eval.instructions}</Alert>}
              <Title order={2} size="h5">Input</Title>
              <JsonBlock label="Input" value={it.content.input} empty="No input recorded" />
              <Title order={2} size="h5">Output</Title>
              <JsonBlock label="Output" value={it.content.output} empty="No output recorded" />
              <Group gap={6} mt="xs">
                <Text size="sm" c="dimmed">Press</Text><Kbd>1</Kbd>–<Kbd>9</Kbd><Text size="sm" c="dimmed">to score “{cfg?.name ?? '…'}”,</Text>
                <Kbd>s</Kbd><Text size="sm" c="dimmed">to skip,</Text><Kbd>r</Kbd><Text size="sm" c="dimmed">to release.</Text>
              </Group>
              {hint && <Text size="sm" c="orange.9">{hint}</Text>}
              {failed && <ErrorState error={failed} title="Could not save" />}
            </Stack>
          </Paper>
        )
      }
    </QueryState>
  );
}
