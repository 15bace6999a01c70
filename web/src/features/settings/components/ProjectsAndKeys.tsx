import { Button, Code, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { SecretOnce } from '../../../components/SecretOnce';
import { StatusBadge } from '../../../components/StatusBadge';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import { useApiKeys, useCreateApiKey, useCreateProject, useRevokeApiKey } from '../hooks/useSettings';

/** Projects and their API keys (a new key is shown once). */
export function ProjectsAndKeys() {
  const { canWrite, isAdmin } = useCurrent();
  const projects = useProjects();
  const keys = useApiKeys();
  const createProject = useCreateProject();
  const createKey = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const projectForm = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name it') },
  });
  const keyForm = useForm<{ project_id: string; scope: 'full' | 'public' }>({
    initialValues: { project_id: '', scope: 'full' },
  });
  const { projectId } = useSession();
  const keyProject = keyForm.values.project_id || projectId || projects.data?.[0]?.id || '';
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id;
  return (
    <Stack gap="xl">
      <Section title="Projects">
        <QueryState
          query={projects}
          what="projects"
          empty={{
            title: 'No projects yet',
            description: isAdmin
              ? 'Create the first one below: calls, traces and keys belong to a project.'
              : 'An admin creates projects.',
          }}
        >
          {(rows) => (
            <DataTable
              caption="Projects"
              rows={rows}
              rowKey={(p) => p.id}
              minWidth={520}
              columns={[
                {
                  key: 'n',
                  label: 'Name',
                  render: (p) => (
                    <Text size="sm" fw={500}>
                      {p.name}
                    </Text>
                  ),
                },
                { key: 'i', label: 'Id', render: (p) => <Code>{p.id}</Code> },
                { key: 'c', label: 'Created', render: (p) => fmt.time(p.created_at) },
              ]}
            />
          )}
        </QueryState>
        {isAdmin && (
          <form
            onSubmit={projectForm.onSubmit(({ name }) =>
              createProject.mutate(name.trim(), { onSuccess: () => projectForm.reset() }),
            )}
          >
            <Group align="flex-end" gap="sm">
              <TextInput label="New project" name="name" {...projectForm.getInputProps('name')} />
              <Button type="submit" loading={createProject.isPending}>
                Create project
              </Button>
            </Group>
            {createProject.error && <ErrorState error={createProject.error} title="Could not create the project" />}
          </form>
        )}
      </Section>
      <Section title="API keys">
        {createKey.data && (
          <SecretOnce title="New API key" value={createKey.data.key} testId="new-key" onDone={createKey.reset} />
        )}
        <QueryState
          query={keys}
          what="API keys"
          empty={{
            title: 'No API keys yet',
            description: 'Create one below and send it as the bearer token of proxied calls and ingest.',
          }}
        >
          {(rows) => (
            <DataTable
              caption="API keys"
              rows={rows}
              rowKey={(k) => k.id}
              minWidth={820}
              columns={[
                {
                  key: 'k',
                  label: 'Key',
                  render: (k) => (
                    <Code>
                      {k.prefix}…{k.last4}
                    </Code>
                  ),
                },
                { key: 'n', label: 'Name', render: (k) => k.name },
                { key: 's', label: 'Scope', render: (k) => k.scope },
                { key: 'p', label: 'Project', render: (k) => projectName(k.project_id) },
                {
                  key: 'a',
                  label: 'Status',
                  render: (k) => <StatusBadge value={k.is_active ? 'active' : 'revoked'} />,
                },
                { key: 'u', label: 'Last used', render: (k) => (k.last_used_at ? fmt.time(k.last_used_at) : 'never') },
                {
                  key: 'r',
                  label: '',
                  render: (k) =>
                    canWrite &&
                    k.is_active && (
                      <ConfirmButton
                        title="Revoke the key?"
                        message={`Calls with ${k.prefix}…${k.last4} are refused from now on.`}
                        confirm="Revoke"
                        loading={revoke.isPending && revoke.variables === k.id}
                        onConfirm={() => revoke.mutate(k.id)}
                      >
                        Revoke
                      </ConfirmButton>
                    ),
                },
              ]}
            />
          )}
        </QueryState>
        {revoke.error && <ErrorState error={revoke.error} title="Could not revoke the key" />}
        {canWrite && projects.data?.length ? (
          <form onSubmit={keyForm.onSubmit((v) => createKey.mutate({ project_id: keyProject, scope: v.scope }))}>
            <Group align="flex-end" gap="sm">
              <NativeSelect
                label="Project"
                name="project_id"
                data={projects.data.map((p) => ({ value: p.id, label: p.name }))}
                value={keyProject}
                onChange={(e) => keyForm.setFieldValue('project_id', e.currentTarget.value)}
              />
              <NativeSelect
                label="Scope"
                name="scope"
                data={[
                  { value: 'full', label: 'full (proxy, ingest, reads)' },
                  { value: 'public', label: 'public (reads only)' },
                ]}
                {...keyForm.getInputProps('scope')}
              />
              <Button type="submit" loading={createKey.isPending}>
                Create key
              </Button>
            </Group>
            {createKey.error && <ErrorState error={createKey.error} title="Could not create the key" />}
          </form>
        ) : null}
      </Section>
    </Stack>
  );
}
