import { NativeSelect, Text } from '@mantine/core';
import { useState } from 'react';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { Reviewer } from '../components/Reviewer';
import { useCampaigns } from '../hooks/useAnnotation';

/** The annotation queue as a reviewing screen, for human-eval campaigns. */
export function AnnotationPage() {
  const campaigns = useCampaigns();
  const [picked, setPicked] = useState<string | null>(null);
  const [done, setDone] = useState(0);
  const campaign = campaigns.data?.find((c) => c.id === picked);
  return (
    <Page title="Annotation queue" description="Review calls and traces by hand: the keyboard scores, skips and releases.">
      <QueryState query={campaigns} what="campaigns" empty={{ title: 'No campaigns yet', description: 'Create a human-eval campaign (POST /api/v1/human-evals) with score configs and targets; its items queue here.' }}>
        {(list) => (
          <NativeSelect
            label="Campaign" maw={360} value={picked ?? ''} onChange={(e) => setPicked(e.currentTarget.value || null)}
            data={[{ value: '', label: 'Choose a campaign…' }, ...list.map((c) => ({ value: c.id, label: c.name }))]}
          />
        )}
      </QueryState>
      <Text size="sm" c="dimmed" aria-live="polite">{done} reviewed in this session</Text>
      {campaign && <Reviewer key={campaign.id} campaign={campaign} onReviewed={() => setDone((d) => d + 1)} />}
    </Page>
  );
}
