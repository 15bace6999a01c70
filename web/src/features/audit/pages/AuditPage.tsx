import { Badge, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { DataTable } from '../../../components/DataTable';
import { TextFilter } from '../../../components/Filters';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { useAuditLog } from '../hooks/useAuditLog';

const route = getRouteApi('/app/audit');
const actor = (e: Schema<'AuditLog'>) => e.actor_label ?? e.actor_id ?? e.actor_type;

export function AuditPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const set = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const list = useAuditLog(clean({ action: search.action, resource_type: search.resource_type }));
  return (
    <Page
      title="Audit log"
      description="Who changed what in the organization: keys, members, settings and more."
      filters={
        <>
          <TextFilter
            label="Action"
            placeholder="e.g. api_key.create"
            value={search.action}
            onApply={(v) => set({ action: v })}
          />
          <TextFilter
            label="Resource type"
            placeholder="e.g. api_key"
            value={search.resource_type}
            onApply={(v) => set({ resource_type: v })}
          />
        </>
      }
    >
      <QueryState
        query={list}
        what="the audit log"
        empty={{
          title: 'No audit entries',
          description:
            search.action || search.resource_type
              ? 'Nothing matches these filters.'
              : 'Changes to keys, members and settings are recorded here.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Audit log"
            rows={rows}
            rowKey={(e) => e.id}
            minWidth={720}
            columns={[
              { key: 'w', label: 'When', render: (e) => fmt.time(e.created_at) },
              {
                key: 'a',
                label: 'Action',
                render: (e) => (
                  <Text size="sm" ff="monospace">
                    {e.action}
                  </Text>
                ),
              },
              {
                key: 'by',
                label: 'Actor',
                render: (e) => (
                  <>
                    {actor(e)}{' '}
                    <Badge size="xs" variant="light" color="gray" radius="sm" tt="none">
                      {e.actor_type.replace('_', ' ')}
                    </Badge>
                  </>
                ),
              },
              {
                key: 'r',
                label: 'Resource',
                render: (e) => `${e.resource_type}${e.resource_id ? ` ${e.resource_id}` : ''}`,
              },
            ]}
          />
        )}
      </QueryState>
    </Page>
  );
}
