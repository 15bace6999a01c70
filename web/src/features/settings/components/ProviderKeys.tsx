import { Button, Code, Group, NativeSelect, PasswordInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { PROVIDERS, type Provider } from '../../../api/enums';
import { useCurrent } from '../../../app/current';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import { useProviderKeys, useSaveProviderKey } from '../hooks/useSettings';

/** The providers' keys the proxy calls with (stored encrypted, shown masked, write-only). */
export function ProviderKeys() {
  const { canWrite } = useCurrent();
  const projects = useProjects();
  const keys = useProviderKeys();
  const save = useSaveProviderKey();
  const form = useForm<{ project_id: string; provider: Provider; api_key: string }>({
    initialValues: { project_id: '', provider: 'openai', api_key: '' },
    validate: { api_key: (v) => (v.trim() ? null : 'Paste the key') },
  });
  const { projectId } = useSession();
  const target = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id;
  return (
    <Section title="Provider keys">
      <QueryState
        query={keys}
        what="provider keys"
        empty={{
          title: 'No provider keys yet',
          description:
            'The proxy answers 424 provider_key_missing until a project has the key of the provider it calls.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Provider keys"
            rows={rows}
            rowKey={(k) => k.id}
            minWidth={560}
            columns={[
              { key: 'p', label: 'Provider', render: (k) => k.provider },
              { key: 'k', label: 'Key', render: (k) => <Code>{k.masked_key ?? '••••'}</Code> },
              { key: 'j', label: 'Project', render: (k) => projectName(k.project_id) },
              { key: 'u', label: 'Updated', render: (k) => fmt.time(k.updated_at) },
            ]}
          />
        )}
      </QueryState>
      {canWrite && projects.data?.length ? (
        <form
          onSubmit={form.onSubmit((v) =>
            save.mutate(
              { ...v, project_id: target, api_key: v.api_key.trim() },
              { onSuccess: () => form.setFieldValue('api_key', '') },
            ),
          )}
        >
          <Group align="flex-end" gap="sm">
            <NativeSelect
              label="Project"
              data={projects.data.map((p) => ({ value: p.id, label: p.name }))}
              value={target}
              onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)}
            />
            <NativeSelect label="Provider" data={[...PROVIDERS]} {...form.getInputProps('provider')} />
            <PasswordInput label="Key" autoComplete="off" w={260} {...form.getInputProps('api_key')} />
            <Button type="submit" loading={save.isPending}>
              Save provider key
            </Button>
          </Group>
          {save.error && <ErrorState error={save.error} title="Could not save the key" />}
        </form>
      ) : null}
    </Section>
  );
}
