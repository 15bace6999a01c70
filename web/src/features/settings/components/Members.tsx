import { Badge, Button, Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ROLES, type Role } from '../../../api/enums';
import { useCurrent } from '../../../app/current';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useInvitations, useInvite, useMembers } from '../hooks/useSettings';

/** Who is in the organization with which role; admins invite. */
export function Members() {
  const { org, isAdmin } = useCurrent();
  const members = useMembers(org.id);
  const invitations = useInvitations(org.id, isAdmin);
  const invite = useInvite(org.id);
  const form = useForm<{ email: string; role: Role }>({ initialValues: { email: '', role: 'viewer' }, validate: { email: (v) => (/^\S+@\S+$/.test(v) ? null : 'An e-mail address') } });
  return (
    <Stack gap="xl">
      <Section title="Members">
        <QueryState query={members} what="members" empty={{ title: 'No members' }}>
          {(rows) => (
            <DataTable caption="Members" rows={rows} rowKey={(m) => m.user_id} minWidth={520} columns={[
              { key: 'e', label: 'Member', render: (m) => <>{m.email ?? m.sub} {m.is_owner && <Badge size="xs" variant="light" radius="sm" tt="none">owner</Badge>}</> },
              { key: 'r', label: 'Role', render: (m) => m.role },
              { key: 'j', label: 'Joined', render: (m) => fmt.time(m.joined_at) },
            ]} />
          )}
        </QueryState>
      </Section>
      {isAdmin && (
        <Section title="Invitations">
          <QueryState query={invitations} what="invitations" empty={{ title: 'No invitations', description: 'Invite someone below: they join when they sign in with that e-mail.' }}>
            {(rows) => (
              <DataTable caption="Invitations" rows={rows} rowKey={(i) => i.id} minWidth={560} columns={[
                { key: 'e', label: 'E-mail', render: (i) => i.email },
                { key: 'r', label: 'Role', render: (i) => i.role },
                { key: 's', label: 'Status', render: (i) => <StatusBadge value={i.status} /> },
                { key: 'x', label: 'Expires', render: (i) => fmt.time(i.expires_at) },
              ]} />
            )}
          </QueryState>
          <form onSubmit={form.onSubmit((v) => invite.mutate(v, { onSuccess: () => form.reset() }))}>
            <Group align="flex-end" gap="sm">
              <TextInput label="E-mail" type="email" {...form.getInputProps('email')} />
              <NativeSelect label="Role" data={[...ROLES]} {...form.getInputProps('role')} />
              <Button type="submit" loading={invite.isPending}>Invite</Button>
            </Group>
            {invite.error && <ErrorState error={invite.error} title="Could not invite" />}
          </form>
        </Section>
      )}
    </Stack>
  );
}
