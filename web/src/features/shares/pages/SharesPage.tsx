import type { Schema } from '../../../api/types';
import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useShares } from '../hooks/useShares';

type Share = Schema<'Share'>;

/** A shared resource, linked to its page where the dashboard has one. */
function Resource({ s }: { s: Share }) {
  if (s.resource_type === 'trace') return <AppLink to="/traces/$id" params={{ id: s.resource_id }}>{s.resource_id}</AppLink>;
  if (s.resource_type === 'request') return <AppLink to="/requests/$id" params={{ id: s.resource_id }}>{s.resource_id}</AppLink>;
  if (s.resource_type === 'session') return <AppLink to="/sessions/$id" params={{ id: s.resource_id }}>{s.resource_id}</AppLink>;
  return <>{s.resource_id}</>;
}

export function SharesPage() {
  const list = useShares();
  return (
    <Page title="Shares" description="Read-only links to traces, requests and sessions, for people without an account.">
      <QueryState query={list} what="shares" empty={{ title: 'No share links yet', description: 'Open a trace or a request and choose Share: the link is shown once.' }}>
        {(rows) => (
          <DataTable caption="Shares" rows={rows} rowKey={(s) => s.id} minWidth={760} columns={[
            { key: 't', label: 'Type', render: (s) => s.resource_type.replace(/_/g, ' ') },
            { key: 'r', label: 'Resource', render: (s) => <Resource s={s} /> },
            { key: 'b', label: 'Bodies', render: (s) => (s.redact_bodies ? 'hidden' : 'shown') },
            { key: 'v', label: 'Views', numeric: true, render: (s) => fmt.int(s.view_count) },
            { key: 'e', label: 'Expires', render: (s) => (s.expires_at ? fmt.time(s.expires_at) : 'never') },
            { key: 's', label: 'Status', render: (s) => <StatusBadge value={s.revoked_at ? 'revoked' : 'active'} /> },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
