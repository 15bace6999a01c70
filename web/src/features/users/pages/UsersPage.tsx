import { useNavigate } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { useEndUsers } from '../hooks/useUsers';

type User = Schema<'EndUser'>;
const limit = (u: User) =>
  u.rate_limit?.requests_limit ? `${fmt.int(u.rate_limit.requests)} / ${fmt.int(u.rate_limit.requests_limit)}` : '—';

const COLUMNS: Column<User>[] = [
  { key: 'u', label: 'User', width: '1.4fr', render: (u) => u.user_id },
  { key: 'r', label: 'Requests', width: '.7fr', render: (u) => fmt.int(u.requests) },
  { key: 'c', label: 'Spend', width: '.8fr', render: (u) => fmt.usd(u.cost_usd) },
  { key: 'e', label: 'Error rate', width: '.7fr', render: (u) => fmt.pct(u.error_rate) },
  { key: 'l', label: 'Limit (requests)', width: '.9fr', render: limit },
  { key: 's', label: 'Last seen', width: '1.3fr', render: (u) => fmt.time(u.last_seen) },
];

const DESCRIPTION =
  'Your end users (x-service-user-id): what each spends, how often calls fail, and their rate-limit window.';

export function UsersPage() {
  const list = useEndUsers();
  const navigate = useNavigate();
  return (
    <Page title="Users" description={DESCRIPTION}>
      <QueryState
        query={list}
        what="end users"
        empty={{
          title: 'No end users yet',
          description: 'Send x-service-user-id with proxied calls (or user_id with traces) to see spend per user.',
        }}
      >
        {(rows) => (
          <VirtualTable
            label="End users"
            rows={rows}
            columns={COLUMNS}
            rowKey={(u) => `${u.project_id}:${u.user_id}`}
            onOpen={(u) => void navigate({ to: '/users/$id', params: { id: u.user_id } })}
          />
        )}
      </QueryState>
    </Page>
  );
}
