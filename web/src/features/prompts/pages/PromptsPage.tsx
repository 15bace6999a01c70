import type { Schema } from '../../../api/types';
import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { usePromptList } from '../hooks/usePrompts';

export function PromptsPage() {
  const list = usePromptList();
  return (
    <Page title="Prompts" description="Versioned prompt templates; calls name them with x-service-prompt-version.">
      <QueryState query={list} what="prompts" empty={{ title: 'No prompts yet', description: 'Create one with POST /api/v1/prompts; each change becomes a version you can label and diff here.' }}>
        {(rows) => (
          <DataTable<Schema<'Prompt'>> caption="Prompts" rows={rows} rowKey={(p) => p.id} columns={[
            { key: 'n', label: 'Name', render: (p) => <AppLink to="/prompts/$id" params={{ id: p.id }}>{p.name}</AppLink> },
            { key: 'd', label: 'Description', render: (p) => p.description ?? '—' },
            { key: 'v', label: 'Latest version', numeric: true, render: (p) => (p.latest_version === null ? '—' : `v${p.latest_version}`) },
            { key: 'u', label: 'Updated', render: (p) => fmt.time(p.updated_at) },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
