import { Button, NativeSelect, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { useCurrent } from '../../../app/current';
import { Page, Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { CampaignForm } from '../components/CampaignForm';
import { Campaigns } from '../components/Campaigns';
import { Reviewer } from '../components/Reviewer';
import { useCampaigns } from '../hooks/useAnnotation';

/** Human-eval campaigns (create, add items, follow progress) and the annotation queue as a reviewing screen. */
export function AnnotationPage() {
  const campaigns = useCampaigns();
  const { canWrite } = useCurrent();
  const [picked, setPicked] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [done, setDone] = useState(0);
  const review = useRef<HTMLDivElement>(null);
  const campaign = campaigns.data?.find((c) => c.id === picked);
  const open = (campaigns.data ?? []).filter((c) => c.status === 'open' || c.id === picked);
  // "Review" in the table: the queue below takes that campaign and comes into view.
  const startReview = (id: string) => {
    setPicked(id);
    requestAnimationFrame(() => review.current?.scrollIntoView({ behavior: 'smooth', block: 'start' }));
  };
  const newButton = canWrite ? (
    <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>
      New campaign
    </Button>
  ) : undefined;
  return (
    <Page
      title="Annotation"
      actions={newButton}
      description="Human review: campaigns of calls, traces and sessions, scored by people from the keyboard."
    >
      {creating && <CampaignForm onClose={() => setCreating(false)} onCreated={setPicked} />}
      <Section title="Campaigns">
        <QueryState
          query={campaigns}
          what="campaigns"
          empty={{
            title: 'No campaigns yet',
            description: canWrite
              ? 'A campaign queues calls or traces for people to score with your score configs, ' +
                'by one or more reviewers each.'
              : 'An admin or editor creates campaigns; their items then queue here for you.',
            action: newButton,
          }}
        >
          {(rows) => <Campaigns rows={rows} onReview={startReview} />}
        </QueryState>
      </Section>
      <div ref={review} style={{ scrollMarginTop: 72 }}>
        <Section title="Review">
          <Stack gap="xs">
            <NativeSelect
              label="Campaign"
              maw={360}
              value={picked ?? ''}
              onChange={(e) => setPicked(e.currentTarget.value || null)}
              data={[
                { value: '', label: open.length ? 'Choose a campaign…' : 'No open campaign' },
                ...open.map((c) => ({ value: c.id, label: c.name })),
              ]}
            />
            <Text size="sm" c="dimmed" aria-live="polite">
              {done} reviewed in this session
            </Text>
          </Stack>
          {campaign && <Reviewer key={campaign.id} campaign={campaign} onReviewed={() => setDone((d) => d + 1)} />}
        </Section>
      </div>
    </Page>
  );
}
