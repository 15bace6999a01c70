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

/** The keys of a config: each category's number and label, 1 / 0 for yes / no, or the number range. */
function Keys({ cfg }: { cfg: Config | undefined }) {
  if (cfg?.data_type === 'categorical') {
    const cats = (cfg.categories ?? []).slice(0, 9);
    const last = cats.length - 1;
    return (
      <>
        {cats.map((c, i) => (
          <Text key={c.label} size="sm" c="dimmed">
            <Kbd>{i + 1}</Kbd> {c.label}
            {i < last ? ',' : ''}
          </Text>
        ))}
      </>
    );
  }
  if (cfg?.data_type === 'boolean')
    return (
      <Text size="sm" c="dimmed">
        <Kbd>1</Kbd> yes, <Kbd>0</Kbd> no
      </Text>
    );
  const low = Math.max(0, Math.ceil(cfg?.min ?? 0));
  const high = Math.min(9, Math.floor(cfg?.max ?? 9));
  return (
    <>
      <Kbd>{low}</Kbd>–<Kbd>{high}</Kbd>
    </>
  );
}

/**
 * One campaign's queue, driven by the keyboard: a number answers the current score config and
 * moves to the next (the item is sent once every config has its answer; Backspace takes the last
 * one back), s skips, r releases.
 */
export function Reviewer({ campaign, onReviewed }: { campaign: Schema<'HumanEval'>; onReviewed: () => void }) {
  const first = useQueueItem(campaign.id);
  const configs = useScoreConfigs(campaign.project_id);
  const { score, skip, release } = useQueueActions(campaign.id);
  // After the first item, each action answers the next one.
  const [next, setNext] = useState<QueueItem | undefined>(undefined);
  const item = next !== undefined ? next : first.data;
  // The API wants every config of the campaign answered: they are asked one after the other.
  const cfgs = campaign.score_config_ids.map((id) => configs.data?.find((c) => c.id === id));
  const [answers, setAnswers] = useState<Answer[]>([]);
  const cfg = cfgs[answers.length];
  const failed = score.error ?? skip.error ?? release.error;
  const [hint, setHint] = useState<string | null>(null);
  const moveOn = (n: QueueItem) => (setNext(n), setAnswers([]));
  const key = (e: KeyboardEvent) => {
    if (!item || !cfg) return;
    if (/^[0-9]$/.test(e.key)) {
      const a = answerFor(cfg, Number(e.key));
      if (!a) return setHint(`${e.key} is not a value of “${cfg.name}”`);
      setHint(null);
      const all = [...answers, a];
      if (all.length < cfgs.length) return setAnswers(all);
      score.mutate(
        { target_key: item.target_key, scores: all },
        {
          onSuccess: (n) => (moveOn(n), onReviewed()),
          onError: () => setAnswers([]), // the error shows; the reviewer starts the item over
        },
      );
    }
    if (e.key === 'Backspace') setAnswers((as) => as.slice(0, -1));
    if (e.key === 's') skip.mutate(item.target_key, { onSuccess: moveOn });
    if (e.key === 'r') release.mutate(item.target_key, { onSuccess: moveOn });
  };
  const given = answers.map((a, i) => `${cfgs[i]?.name ?? '…'} ${'value' in a ? a.value : a.string_value}`).join(' · ');
  return (
    <QueryState query={{ ...first, data: first.data === undefined ? undefined : item }} what="the queue">
      {(it) =>
        it === null ? (
          <EmptyView
            title="Nothing left for you in this campaign"
            description="Every item you can review has its scores. Pick another campaign."
          />
        ) : (
          <Paper
            withBorder
            p="lg"
            className="review"
            tabIndex={0}
            onKeyDown={key}
            aria-label="Item to review: press a number to score, s to skip, r to release"
            aria-busy={score.isPending || skip.isPending || release.isPending}
          >
            <Stack gap="sm">
              {it.human_eval.instructions && (
                <Alert variant="light" color="indigo" title="Instructions">
                  {it.human_eval.instructions}
                </Alert>
              )}
              <Title order={2} size="h5">
                Input
              </Title>
              <JsonBlock label="Input" value={it.content.input} empty="No input recorded" />
              <Title order={2} size="h5">
                Output
              </Title>
              <JsonBlock label="Output" value={it.content.output} empty="No output recorded" />
              <Group gap={6} mt="xs">
                <Text size="sm" c="dimmed">
                  Press
                </Text>
                <Keys cfg={cfg} />
                <Text size="sm" c="dimmed" data-testid="current-config">
                  to score “{cfg?.name ?? '…'}”{cfgs.length > 1 ? ` (${answers.length + 1} of ${cfgs.length})` : ''},
                </Text>
                <Kbd>s</Kbd>
                <Text size="sm" c="dimmed">
                  to skip,
                </Text>
                <Kbd>r</Kbd>
                <Text size="sm" c="dimmed">
                  to release.
                </Text>
              </Group>
              {given && (
                <Text size="sm" aria-live="polite">
                  Given: {given} <Kbd>Backspace</Kbd> takes the last back.
                </Text>
              )}
              {hint && (
                <Text size="sm" c="var(--mantine-color-error)" role="status">
                  {hint}
                </Text>
              )}
              {failed && <ErrorState error={failed} title="Could not save" />}
            </Stack>
          </Paper>
        )
      }
    </QueryState>
  );
}
