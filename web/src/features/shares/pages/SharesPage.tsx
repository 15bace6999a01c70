import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useRevokeShare, useShares } from '../hooks/useShares';

type Share = Schema<'Share'>;

/** A shared resource, linked to its page where the dashboard has one. */
function Resource({ s }: { s: Share }) {
  if (s.resource_type === 'trace')
    return (
      <AppLink to="/traces/$id" params={{ id: s.resource_id }}>
        {s.resource_id}
      </AppLink>
    );
  if (s.resource_type === 'request')
    return (
      <AppLink to="/requests/$id" params={{ id: s.resource_id }}>
        {s.resource_id}
      </AppLink>
    );
  if (s.resource_type === 'session')
    return (
      <AppLink to="/sessions/$id" params={{ id: s.resource_id }}>
        {s.resource_id}
      </AppLink>
    );
  return <>{s.resource_id}</>;
}

export function SharesPage() {
  const { canWrite } = useCurrent();
  const list = useShares();
  const revoke = useRevokeShare();
  return (
    <Page title="Shares" description="Read-only links to traces, requests and sessions, for people without an account.">
      <QueryState
        query={list}
        what="shares"
        empty={{
          title: 'No share links yet',
          description: canWrite
            ? 'Open a trace, a request or a session and choose Share: the link is shown once.'
            : 'Editors and admins share traces, requests and sessions.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Shares"
            rows={rows}
            rowKey={(s) => s.id}
            minWidth={900}
            columns={[
              { key: 't', label: 'Type', render: (s) => s.resource_type.replace(/_/g, ' ') },
              { key: 'r', label: 'Resource', render: (s) => <Resource s={s} /> },
              { key: 'b', label: 'Bodies', render: (s) => (s.redact_bodies ? 'hidden' : 'shown') },
              { key: 'v', label: 'Views', numeric: true, render: (s) => fmt.int(s.view_count) },
              { key: 'e', label: 'Expires', render: (s) => (s.expires_at ? fmt.time(s.expires_at) : 'never') },
              { key: 'l', label: 'Last viewed', render: (s) => fmt.time(s.last_viewed_at) },
              {
                key: 's',
                label: 'Status',
                render: (s) => (
                  <StatusBadge
                    value={
                      s.revoked_at
                        ? 'revoked'
                        : s.expires_at && s.expires_at < new Date().toISOString()
                          ? 'expired'
                          : 'active'
                    }
                  />
                ),
              },
              {
                key: 'a',
                label: 'Actions',
                render: (s) =>
                  canWrite &&
                  !s.revoked_at && (
                    <ConfirmButton
                      title="Revoke the link?"
                      message={`Whoever has the link (…${s.token_hint}) can no longer open the ${s.resource_type}.`}
                      confirm="Revoke"
                      aria-label={`Revoke the link to ${s.resource_type} ${s.resource_id}`}
                      loading={revoke.isPending && revoke.variables === s.id}
                      onConfirm={() => revoke.mutate(s.id)}
                    >
                      Revoke
                    </ConfirmButton>
                  ),
              },
            ]}
          />
        )}
      </QueryState>
      {revoke.error && <ErrorState error={revoke.error} title="Could not revoke the link" />}
    </Page>
  );
}
