import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { CreatePrompt } from '../components/CreatePrompt';
import { usePromptList } from '../hooks/usePrompts';

export function PromptsPage() {
  const list = usePromptList();
  const { canWrite } = useCurrent();
  const [creating, setCreating] = useState(false);
  const create = canWrite ? (
    <Button size="xs" leftSection={<IconPlus size={14} aria-hidden />} onClick={() => setCreating(true)}>
      New prompt
    </Button>
  ) : undefined;
  return (
    <Page
      title="Prompts"
      description="Versioned prompt templates; calls name them with x-service-prompt-version."
      actions={create}
    >
      <QueryState
        query={list}
        what="prompts"
        empty={{
          title: 'No prompts yet',
          description: canWrite
            ? 'Create one with “New prompt”: ' +
              'each change becomes a version you can label, diff and open in the playground.'
            : 'An editor can create one; each change becomes a version you can label and diff here.',
        }}
      >
        {(rows) => (
          <DataTable<Schema<'Prompt'>>
            caption="Prompts"
            rows={rows}
            rowKey={(p) => p.id}
            columns={[
              {
                key: 'n',
                label: 'Name',
                render: (p) => (
                  <AppLink to="/prompts/$id" params={{ id: p.id }}>
                    {p.name}
                  </AppLink>
                ),
              },
              { key: 'd', label: 'Description', render: (p) => p.description ?? '—' },
              {
                key: 'v',
                label: 'Latest version',
                numeric: true,
                render: (p) => (p.latest_version === null ? '—' : `v${p.latest_version}`),
              },
              { key: 'u', label: 'Updated', render: (p) => fmt.time(p.updated_at) },
            ]}
          />
        )}
      </QueryState>
      {creating && <CreatePrompt onClose={() => setCreating(false)} />}
    </Page>
  );
}
