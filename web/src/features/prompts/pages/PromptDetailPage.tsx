import { Badge, Button, Group, Stack } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { DataTable } from '../../../components/DataTable';
import { ButtonLink } from '../../../components/Links';
import { Page, Section } from '../../../components/Page';
import { EmptyView, QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { LabelsEditor } from '../components/LabelsEditor';
import { VersionDiff } from '../components/VersionDiff';
import { usePrompt } from '../hooks/usePrompts';

const route = getRouteApi('/app/prompts/$id');
type Version = Schema<'PromptVersion'>;

/** A prompt: versions with labels (writers edit them) and a diff of any two. */
export function PromptDetailPage() {
  const { id } = route.useParams();
  const prompt = usePrompt(id);
  const { canWrite } = useCurrent();
  const [editing, setEditing] = useState<Version | null>(null);
  return (
    <Page title={prompt.data?.name ?? 'Prompt'} description={prompt.data?.description ?? undefined} actions={<ButtonLink to="/prompts" variant="default" size="xs">All prompts</ButtonLink>}>
      <QueryState query={prompt} what="the prompt">
        {(p) => {
          const versions = [...p.versions].sort((a, b) => b.version - a.version);
          if (versions.length === 0) return <EmptyView title="No versions yet" description="POST a version to /api/v1/prompts/:id/versions." />;
          return (
            <Stack gap="xl">
              <Section title="Versions">
                <DataTable caption="Versions" rows={versions} rowKey={(v) => v.id} columns={[
                  { key: 'v', label: 'Version', render: (v) => `v${v.version}` },
                  { key: 'm', label: 'Model', render: (v) => v.model ?? '—' },
                  { key: 'l', label: 'Labels', render: (v) => (
                    <Group gap={6}>
                      {v.labels.length ? v.labels.map((l) => <Badge key={l} variant="light" radius="sm" tt="none">{l}</Badge>) : '—'}
                      {canWrite && <Button size="compact-xs" variant="subtle" onClick={() => setEditing(v)} aria-label={`Edit the labels of version ${v.version}`}>Edit</Button>}
                    </Group>
                  ) },
                  { key: 'c', label: 'Message', render: (v) => v.commit_message ?? '—' },
                  { key: 't', label: 'Created', render: (v) => fmt.time(v.created_at) },
                ]} />
              </Section>
              <Section title="Diff"><VersionDiff versions={versions} /></Section>
              {editing && <LabelsEditor promptId={p.id} projectId={p.project_id} version={editing.version} labels={editing.labels} onClose={() => setEditing(null)} />}
            </Stack>
          );
        }}
      </QueryState>
    </Page>
  );
}
