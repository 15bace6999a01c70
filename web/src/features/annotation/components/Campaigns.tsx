import { Badge, Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconPencil, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useCurrent } from '../../../app/current';
import type { Schema } from '../../../api/types';
import * as fmt from '../../../lib/format';
import { useSetCampaignStatus } from '../hooks/useAnnotation';
import { AddItems } from './AddItems';
import { Agreement } from './Agreement';

type Campaign = Schema<'HumanEval'>;

/** Answers given of those needed (items × reviewers per item), as a bar and in words. */
function ProgressCell({ c }: { c: Campaign }) {
  const { slots, done, reserved } = c.progress;
  return (
    <Stack gap={2} style={{ flex: '1 1 180px' }} maw={280}>
      <Progress
        value={slots ? (done / slots) * 100 : 0}
        size="sm"
        aria-label={`Answers of ${c.name}`}
        color={done === slots && slots ? 'green' : undefined}
      />
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        {fmt.int(done)} / {fmt.int(slots)} answers{reserved ? ` · ${fmt.int(reserved)} in review` : ''}
      </Text>
    </Stack>
  );
}

/**
 * Every campaign with its progress, as cards that wrap on a phone (the actions stay in view).
 * "Review" opens its queue below; writers add items and close or reopen it (a closed campaign
 * hands out no more items).
 */
export function Campaigns({ rows, onReview }: { rows: Campaign[]; onReview: (id: string) => void }) {
  const { canWrite } = useCurrent();
  const [adding, setAdding] = useState<Campaign | null>(null);
  const [agreement, setAgreement] = useState<Campaign | null>(null);
  const status = useSetCampaignStatus();
  return (
    <Stack gap="xs">
      {rows.map((c) => (
        <Paper
          key={c.id}
          withBorder
          p="sm"
          radius="md"
          component="article"
          aria-label={c.name}
          data-testid={`campaign-${c.name}`}
        >
          <Group gap="md" wrap="wrap" align="center">
            <Stack gap={2} style={{ flex: '2 1 240px', minWidth: 0 }}>
              <Group gap="xs" wrap="nowrap">
                <Text size="sm" fw={600} truncate>
                  {c.name}
                </Text>
                <Badge
                  variant="light"
                  radius="sm"
                  tt="none"
                  style={{ flexShrink: 0 }}
                  color={c.status === 'open' ? 'green' : 'gray'}
                >
                  {c.status}
                </Badge>
              </Group>
              {c.instructions && (
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {c.instructions}
                </Text>
              )}
            </Stack>
            <ProgressCell c={c} />
            <Stack gap={0} style={{ flex: '1 1 170px' }}>
              <Text size="sm" data-testid="campaign-items">
                {fmt.count(c.items, 'item')}
              </Text>
              <Text size="xs" c="dimmed">
                {c.reviewers.length ? fmt.count(c.reviewers.length, 'reviewer') : 'everyone'}
                {' · '}
                {c.reviewers_per_item} per item
                {' · '}
                {fmt.time(c.created_at)}
              </Text>
            </Stack>
            <Group gap={6} wrap="wrap">
              <Button
                size="compact-sm"
                leftSection={<IconPencil size={14} aria-hidden />}
                disabled={c.status !== 'open'}
                onClick={() => onReview(c.id)}
                aria-label={`Review ${c.name}`}
              >
                Review
              </Button>
              <Button
                size="compact-sm"
                variant="default"
                onClick={() => setAgreement(c)}
                aria-label={`Agreement in ${c.name}`}
              >
                Agreement
              </Button>
              {canWrite && (
                <>
                  <Button
                    size="compact-sm"
                    variant="default"
                    leftSection={<IconPlus size={14} aria-hidden />}
                    onClick={() => setAdding(c)}
                    aria-label={`Add items to ${c.name}`}
                  >
                    Add items
                  </Button>
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    color="gray"
                    loading={status.isPending && status.variables?.id === c.id}
                    onClick={() => status.mutate({ id: c.id, status: c.status === 'open' ? 'closed' : 'open' })}
                    aria-label={`${c.status === 'open' ? 'Close' : 'Reopen'} ${c.name}`}
                  >
                    {c.status === 'open' ? 'Close' : 'Reopen'}
                  </Button>
                </>
              )}
            </Group>
          </Group>
        </Paper>
      ))}
      {status.error && (
        <Text size="sm" c="var(--mantine-color-error)">
          {status.error.message}
        </Text>
      )}
      {adding && <AddItems campaign={adding} onClose={() => setAdding(null)} />}
      <Agreement campaign={agreement} onClose={() => setAgreement(null)} />
    </Stack>
  );
}
