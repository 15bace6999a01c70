import { Anchor, Code } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useDeliveries } from '../hooks/useWebhooks';

/** The latest deliveries, each linked to its durable workflow in the Temporal Web UI. */
export function Deliveries({ id, temporalUi }: { id: string; temporalUi: string | null }) {
  const deliveries = useDeliveries(id);
  return (
    <QueryState query={deliveries} what="deliveries" empty={{ title: 'No deliveries yet', description: 'Send a test, or wait for a subscribed event.' }}>
      {(rows) => (
        <DataTable caption="Latest deliveries" rows={rows} rowKey={(d) => d.id} minWidth={760} columns={[
          { key: 'e', label: 'Event', render: (d) => d.event_type },
          { key: 's', label: 'Status', render: (d) => <StatusBadge value={d.status} /> },
          { key: 'h', label: 'HTTP', numeric: true, render: (d) => d.http_status ?? '—' },
          { key: 'a', label: 'Attempts', numeric: true, render: (d) => fmt.int(d.attempt_count) },
          { key: 'n', label: 'Next retry', render: (d) => fmt.time(d.next_retry_at) },
          { key: 'w', label: 'Workflow', render: (d) => (temporalUi
            ? <Anchor href={`${temporalUi}/namespaces/default/workflows/webhook-delivery-${d.id}`} target="_blank" rel="noreferrer" size="sm">Temporal UI</Anchor>
            : <Code>webhook-delivery-{d.id}</Code>) },
        ]} />
      )}
    </QueryState>
  );
}
