import { Badge, Button, Group, Stack } from '@mantine/core';
import { IconPlayerPlay, IconPlus } from '@tabler/icons-react';
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
import { NewVersion } from '../components/NewVersion';
import { VersionDiff } from '../components/VersionDiff';
import { usePrompt } from '../hooks/usePrompts';

const route = getRouteApi('/app/prompts/$id');
type Version = Schema<'PromptVersion'>;

/**
 * A prompt: versions with labels (writers add versions and move labels), a diff of any two, each openable in the
 * playground.
 */
export function PromptDetailPage() {
  const { id } = route.useParams();
  const prompt = usePrompt(id);
  const { canWrite } = useCurrent();
  const [editing, setEditing] = useState<Version | null>(null);
  const [adding, setAdding] = useState(false);
  const actions = (
    <>
      {canWrite && prompt.data && (
        <Button size="xs" leftSection={<IconPlus size={14} aria-hidden />} onClick={() => setAdding(true)}>
          New version
        </Button>
      )}
      <ButtonLink to="/prompts" variant="default" size="xs">
        All prompts
      </ButtonLink>
    </>
  );
  return (
    <Page title={prompt.data?.name ?? 'Prompt'} description={prompt.data?.description ?? undefined} actions={actions}>
      <QueryState query={prompt} what="the prompt">
        {(p) => {
          const versions = [...p.versions].sort((a, b) => b.version - a.version);
          return (
            <Stack gap="xl">
              {versions.length === 0 ? (
                <EmptyView
                  title="No versions yet"
                  description={
                    canWrite ? 'Add the first one with “New version”.' : 'An editor can add the first version.'
                  }
                />
              ) : (
                <>
                  <Section title="Versions">
                    <DataTable
                      caption="Versions"
                      rows={versions}
                      rowKey={(v) => v.id}
                      columns={[
                        { key: 'v', label: 'Version', render: (v) => `v${v.version}` },
                        { key: 'm', label: 'Model', render: (v) => v.model ?? '—' },
                        {
                          key: 'l',
                          label: 'Labels',
                          render: (v) => (
                            <Group gap={6}>
                              {v.labels.length
                                ? v.labels.map((l) => (
                                    <Badge key={l} variant="light" radius="sm" tt="none">
                                      {l}
                                    </Badge>
                                  ))
                                : '—'}
                              {canWrite && (
                                <Button
                                  size="compact-xs"
                                  variant="subtle"
                                  onClick={() => setEditing(v)}
                                  aria-label={`Edit the labels of version ${v.version}`}
                                >
                                  Edit
                                </Button>
                              )}
                            </Group>
                          ),
                        },
                        { key: 'c', label: 'Message', render: (v) => v.commit_message ?? '—' },
                        { key: 't', label: 'Created', render: (v) => fmt.time(v.created_at) },
                        {
                          key: 'p',
                          label: 'Playground',
                          render: (v) => (
                            <ButtonLink
                              to="/playground"
                              search={{ prompt: p.id, version: String(v.version) }}
                              size="compact-xs"
                              variant="light"
                              leftSection={<IconPlayerPlay size={12} aria-hidden />}
                              aria-label={`Open version ${v.version} in the playground`}
                            >
                              Open
                            </ButtonLink>
                          ),
                        },
                      ]}
                    />
                  </Section>
                  {versions.length > 1 && (
                    <Section title="Diff">
                      <VersionDiff versions={versions} />
                    </Section>
                  )}
                </>
              )}
              {editing && (
                <LabelsEditor
                  promptId={p.id}
                  projectId={p.project_id}
                  version={editing.version}
                  labels={editing.labels}
                  onClose={() => setEditing(null)}
                />
              )}
              {adding && (
                <NewVersion
                  promptId={p.id}
                  projectId={p.project_id}
                  base={versions[0]}
                  onClose={() => setAdding(false)}
                />
              )}
            </Stack>
          );
        }}
      </QueryState>
    </Page>
  );
}
