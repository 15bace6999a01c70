import { Button } from '@mantine/core';
import { useState } from 'react';
import { DataTable } from '../../../components/DataTable';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { QueryState } from '../../../components/QueryState';
import { HttpStatus, StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useDeliveries } from '../hooks/useWebhooks';
import { DeliveryDetail } from './DeliveryDetail';
import { WorkflowLink } from './WorkflowLink';

/** The latest deliveries, each linked to its durable workflow in the Temporal Web UI; one opens with its attempts. */
export function Deliveries({ id, temporalUi }: { id: string; temporalUi: string | null }) {
  const deliveries = useDeliveries(id);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <QueryState query={deliveries} what="deliveries" empty={{ title: 'No deliveries yet', description: 'Send a test, or wait for a subscribed event.' }}>
        {(rows) => (
          <DataTable caption="Latest deliveries" rows={rows} rowKey={(d) => d.id} minWidth={840} columns={[
            { key: 'e', label: 'Event', render: (d) => d.event_type },
            { key: 's', label: 'Status', render: (d) => <StatusBadge value={d.status} /> },
            { key: 'h', label: 'HTTP', numeric: true, render: (d) => <HttpStatus code={d.http_status} /> },
            { key: 'a', label: 'Attempts', numeric: true, render: (d) => fmt.int(d.attempt_count) },
            { key: 'n', label: 'Next retry', render: (d) => fmt.time(d.next_retry_at) },
            { key: 'w', label: 'Workflow', render: (d) => <WorkflowLink temporalUi={temporalUi} workflowId={`webhook-delivery-${d.id}`} /> },
            { key: 'x', label: 'Record', render: (d) => <Button size="compact-sm" variant="default" aria-label={`Open ${d.event_type} delivery ${d.id.slice(0, 8)}`} onClick={() => setOpen(d.id)}>Open</Button> },
          ]} />
        )}
      </QueryState>
      <DetailDrawer opened={open !== null} onClose={() => setOpen(null)} title="Delivery">
        {open && <DeliveryDetail webhookId={id} deliveryId={open} temporalUi={temporalUi} />}
      </DetailDrawer>
    </>
  );
}
