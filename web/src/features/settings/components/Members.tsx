import { Badge, Button, Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ROLES, type Role } from '../../../api/enums';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import {
  useChangeRole,
  useInvitations,
  useInvite,
  useMembers,
  useRemoveMember,
  useRevokeInvitation,
} from '../hooks/useSettings';

/** Who is in the organization with which role; admins invite. */
export function Members() {
  const { org, isAdmin, me } = useCurrent();
  const changeRole = useChangeRole(org.id);
  const remove = useRemoveMember(org.id);
  const revoke = useRevokeInvitation(org.id);
  const members = useMembers(org.id);
  const invitations = useInvitations(org.id, isAdmin);
  const invite = useInvite(org.id);
  const form = useForm<{ email: string; role: Role }>({
    initialValues: { email: '', role: 'viewer' },
    validate: { email: (v) => (/^\S+@\S+$/.test(v) ? null : 'An e-mail address') },
  });
  return (
    <Stack gap="xl">
      <Section title="Members">
        <QueryState query={members} what="members" empty={{ title: 'No members' }}>
          {(rows) => (
            <DataTable
              caption="Members"
              rows={rows}
              rowKey={(m) => m.user_id}
              minWidth={620}
              columns={[
                {
                  key: 'e',
                  label: 'Member',
                  render: (m) => (
                    <>
                      {m.email ?? m.sub}{' '}
                      {m.is_owner && (
                        <Badge size="xs" variant="light" radius="sm" tt="none">
                          owner
                        </Badge>
                      )}
                    </>
                  ),
                },
                {
                  key: 'r',
                  label: 'Role',
                  render: (m) =>
                    isAdmin && !m.is_owner ? (
                      <NativeSelect
                        size="xs"
                        w={110}
                        aria-label={`Role of ${m.email ?? m.sub}`}
                        data={[...ROLES]}
                        value={m.role}
                        disabled={changeRole.isPending && changeRole.variables?.userId === m.user_id}
                        onChange={(e) => {
                          const role = ROLES.find((r) => r === e.currentTarget.value);
                          if (role) changeRole.mutate({ userId: m.user_id, role });
                        }}
                      />
                    ) : (
                      m.role
                    ),
                },
                { key: 'j', label: 'Joined', render: (m) => fmt.time(m.joined_at) },
                ...(isAdmin
                  ? [
                      {
                        key: 'x',
                        label: 'Actions',
                        render: (m: (typeof rows)[number]) =>
                          !m.is_owner &&
                          m.user_id !== me.user.id && (
                            <ConfirmButton
                              title={`Remove ${m.email ?? m.sub}?`}
                              message="They lose access to the organization at once; what they created stays."
                              confirm="Remove"
                              aria-label={`Remove ${m.email ?? m.sub}`}
                              loading={remove.isPending && remove.variables === m.user_id}
                              onConfirm={() => remove.mutate(m.user_id)}
                            >
                              Remove
                            </ConfirmButton>
                          ),
                      },
                    ]
                  : []),
              ]}
            />
          )}
        </QueryState>
        {changeRole.error && <ErrorState error={changeRole.error} title="Could not change the role" />}
        {remove.error && <ErrorState error={remove.error} title="Could not remove the member" />}
      </Section>
      {isAdmin && (
        <Section title="Invitations">
          <QueryState
            query={invitations}
            what="invitations"
            empty={{
              title: 'No invitations',
              description: 'Invite someone below: they join when they sign in with that e-mail.',
            }}
          >
            {(rows) => (
              <DataTable
                caption="Invitations"
                rows={rows}
                rowKey={(i) => i.id}
                minWidth={640}
                columns={[
                  { key: 'e', label: 'E-mail', render: (i) => i.email },
                  { key: 'r', label: 'Role', render: (i) => i.role },
                  { key: 's', label: 'Status', render: (i) => <StatusBadge value={i.status} /> },
                  { key: 'x', label: 'Expires', render: (i) => fmt.time(i.expires_at) },
                  {
                    key: 'a',
                    label: 'Actions',
                    render: (i) =>
                      i.status === 'pending' && (
                        <ConfirmButton
                          title={`Revoke the invitation to ${i.email}?`}
                          message="The link stops working."
                          confirm="Revoke"
                          aria-label={`Revoke the invitation to ${i.email}`}
                          loading={revoke.isPending && revoke.variables === i.id}
                          onConfirm={() => revoke.mutate(i.id)}
                        >
                          Revoke
                        </ConfirmButton>
                      ),
                  },
                ]}
              />
            )}
          </QueryState>
          {revoke.error && <ErrorState error={revoke.error} title="Could not revoke the invitation" />}
          <form onSubmit={form.onSubmit((v) => invite.mutate(v, { onSuccess: () => form.reset() }))}>
            <Group align="flex-end" gap="sm">
              <TextInput label="E-mail" type="email" {...form.getInputProps('email')} />
              <NativeSelect label="Role" data={[...ROLES]} {...form.getInputProps('role')} />
              <Button type="submit" loading={invite.isPending}>
                Invite
              </Button>
            </Group>
            {invite.error && <ErrorState error={invite.error} title="Could not invite" />}
          </form>
        </Section>
      )}
    </Stack>
  );
}
