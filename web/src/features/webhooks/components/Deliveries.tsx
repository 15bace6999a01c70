import { Button, Code, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { CopyId } from '../../../components/CopyId';
import { DataTable } from '../../../components/DataTable';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { QueryState } from '../../../components/QueryState';
import { HttpStatus, StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useDeliveries } from '../hooks/useWebhooks';
import { DeliveryDetail } from './DeliveryDetail';
import { WorkflowLink } from './WorkflowLink';

// Every delivery is one Temporal workflow whose id is derived from the delivery id (docs/webhooks.md).
const workflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;
const LISTED = 10;

/** The latest deliveries, each linked to its durable workflow in the Temporal Web UI; one opens with its attempts. */
export function Deliveries({ id, temporalUi }: { id: string; temporalUi: string | null }) {
  const deliveries = useDeliveries(id);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <QueryState
        query={deliveries}
        what="deliveries"
        empty={{ title: 'No deliveries yet', description: 'Send a test, or wait for a subscribed event.' }}
      >
        {(rows) => (
          <DataTable
            caption="Latest deliveries"
            rows={rows}
            rowKey={(d) => d.id}
            minWidth={840}
            columns={[
              { key: 'e', label: 'Event', render: (d) => d.event_type },
              { key: 's', label: 'Status', render: (d) => <StatusBadge value={d.status} /> },
              { key: 'h', label: 'HTTP', numeric: true, render: (d) => <HttpStatus code={d.http_status} /> },
              { key: 'a', label: 'Attempts', numeric: true, render: (d) => fmt.int(d.attempt_count) },
              { key: 'n', label: 'Next retry', render: (d) => fmt.time(d.next_retry_at) },
              {
                key: 'w',
                label: 'Workflow',
                render: (d) =>
                  d.event_type === 'test' ? (
                    // A test is sent once from the API, not by a workflow: a link would lead to nothing.
                    <Text size="xs" c="dimmed">
                      none: sent directly
                    </Text>
                  ) : (
                    // The id to paste into the Temporal CLI, and the link to its page in the Temporal UI.
                    <Group gap={6} wrap="nowrap" data-testid="delivery-workflow">
                      <CopyId
                        value={workflowId(d.id)}
                        what={`workflow id of delivery ${d.id.slice(0, 8)}`}
                        short={26}
                      />
                      {temporalUi && <WorkflowLink temporalUi={temporalUi} workflowId={workflowId(d.id)} />}
                    </Group>
                  ),
              },
              {
                key: 'x',
                label: 'Record',
                render: (d) => (
                  <Button
                    size="compact-sm"
                    variant="default"
                    aria-label={`Open ${d.event_type} delivery ${d.id.slice(0, 8)}`}
                    onClick={() => setOpen(d.id)}
                  >
                    Open
                  </Button>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {/* The API lists the latest 10 only: say so, and where the older ones are. */}
      {(deliveries.data?.length ?? 0) >= LISTED && (
        <Text size="xs" c="dimmed">
          Showing the {LISTED} latest deliveries. Older ones are workflows in Temporal (ids start with{' '}
          <Code>webhook-delivery-</Code>); Recover resends the failed ones since a date.
        </Text>
      )}
      <DetailDrawer opened={open !== null} onClose={() => setOpen(null)} title="Delivery">
        {open && <DeliveryDetail webhookId={id} deliveryId={open} temporalUi={temporalUi} />}
      </DetailDrawer>
    </>
  );
}
