import { Button, Group, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { unwrap } from '../api/client';
import { useApiMutation } from '../api/mutation';
import { EmptyView, ErrorState } from '../components/QueryState';
import { useSessionStore } from '../session/context';

/** A new user with no organization: create one here (or accept an invitation from an admin). */
export function NoOrganization() {
  const store = useSessionStore();
  const form = useForm({ initialValues: { name: '' }, validate: { name: (v) => (v.trim() ? null : 'Name it') } });
  const create = useApiMutation((api, name: string) => unwrap(api.POST('/api/v1/organizations', { body: { name } })), {
    invalidates: ['me'],
    onSuccess: (org) => store.setOrg(org.id),
  });
  return (
    <EmptyView
      title="You belong to no organization yet"
      description="Create one to start, or ask an admin of an existing organization to invite you."
      action={
        <form onSubmit={form.onSubmit(({ name }) => create.mutate(name.trim()))}>
          <Group align="flex-end" gap="sm">
            <TextInput label="Organization name" {...form.getInputProps('name')} />
            <Button type="submit" loading={create.isPending}>
              Create organization
            </Button>
          </Group>
          {create.error && <ErrorState error={create.error} title="Could not create the organization" />}
        </form>
      }
    />
  );
}
