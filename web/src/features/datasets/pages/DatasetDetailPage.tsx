import { Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { useDataset, useDatasetItems } from '../hooks/useDatasets';

const route = getRouteApi('/app/datasets/$id');
const short = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

const COLUMNS: Column<Schema<'DatasetItem'>>[] = [
  { key: 'i', label: 'Item', width: '.8fr', render: (r) => r.id },
  { key: 'in', label: 'Input', width: '2fr', render: (r) => short(r.input) },
  { key: 'ex', label: 'Expected', width: '2fr', render: (r) => short(r.expected_output) },
  { key: 's', label: 'Split', width: '.6fr', render: (r) => r.split ?? '—' },
  { key: 'st', label: 'Status', width: '.7fr', render: (r) => <StatusBadge value={r.status} /> },
];

/** A dataset's items at its latest version, with their split. */
export function DatasetDetailPage() {
  const { id } = route.useParams();
  const dataset = useDataset(id);
  const items = useDatasetItems(id);
  const d = dataset.data;
  return (
    <Page title={d?.name ?? 'Dataset'} description={d?.description ?? undefined} actions={<ButtonLink to="/datasets" variant="default" size="xs">All datasets</ButtonLink>}>
      {d && <Text size="sm" c="dimmed">{fmt.count(d.items, 'item')} · version {fmt.time(d.latest_version)}</Text>}
      <QueryState query={items} what="the items" empty={{ title: 'No items yet', description: 'Add items with POST /api/v1/datasets/:id/items, or from requests.' }}>
        {(rows) => <VirtualTable label="Dataset items" rows={rows} columns={COLUMNS} rowKey={(r) => r.id} />}
      </QueryState>
    </Page>
  );
}
