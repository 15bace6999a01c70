import { DataTable } from '../../../components/DataTable';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useAlertEvents } from '../hooks/useAlerts';

/** A rule's state changes, newest first, with the value that was evaluated. */
export function AlertHistory({ id }: { id: string }) {
  const events = useAlertEvents(id);
  return (
    <QueryState
      query={events}
      what="the history"
      empty={{
        title: 'No state changes yet',
        description: 'The rule is evaluated on its schedule; when it fires, warns or resolves, it is recorded here.',
      }}
    >
      {(rows) => (
        <DataTable
          caption="State changes, newest first"
          rows={rows}
          rowKey={(e) => e.id}
          minWidth={560}
          columns={[
            { key: 'w', label: 'When', render: (e) => fmt.time(e.at) },
            { key: 'k', label: 'Change', render: (e) => <StatusBadge value={e.kind} /> },
            { key: 'g', label: 'Group', render: (e) => e.group || '—' },
            { key: 'v', label: 'Value', numeric: true, render: (e) => (e.value === null ? '—' : fmt.int(e.value)) },
            {
              key: 't',
              label: 'Threshold',
              numeric: true,
              render: (e) => (e.threshold === null ? '—' : fmt.int(e.threshold)),
            },
          ]}
        />
      )}
    </QueryState>
  );
}
