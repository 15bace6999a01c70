import { useNavigate } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { ExportButton } from '../../../components/ExportButton';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { useSessionList } from '../hooks/useSessions';

const COLUMNS: Column<Schema<'SessionSummary'>>[] = [
  { key: 'id', label: 'Session', width: '1.6fr', render: (s) => s.id },
  { key: 'u', label: 'User', render: (s) => s.user_id ?? '—' },
  { key: 't', label: 'Traces', width: '.6fr', render: (s) => fmt.int(s.trace_count) },
  { key: 'r', label: 'Requests', width: '.7fr', render: (s) => fmt.int(s.request_count) },
  { key: 'c', label: 'Cost', width: '.8fr', render: (s) => fmt.usd(s.cost_usd) },
  { key: 'l', label: 'Last seen', width: '1.3fr', render: (s) => fmt.time(s.last_seen_at) },
];

export function SessionsPage() {
  const list = useSessionList();
  const navigate = useNavigate();
  return (
    <Page
      title="Sessions"
      description="Conversations: the calls and traces that share a session id."
      actions={<ExportButton resource="sessions" filter={{}} what="sessions" />}
    >
      <QueryState
        query={list}
        what="sessions"
        empty={{
          title: 'No sessions yet',
          description:
            'Send x-service-session-id with proxied calls, or session_id with traces, ' +
            'to group them into conversations.',
        }}
      >
        {(rows) => (
          <VirtualTable
            label="Sessions"
            rows={rows}
            columns={COLUMNS}
            rowKey={(s) => s.id}
            onOpen={(s) => void navigate({ to: '/sessions/$id', params: { id: s.id } })}
          />
        )}
      </QueryState>
    </Page>
  );
}
