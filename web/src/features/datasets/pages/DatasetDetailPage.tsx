import { Alert, Button, Group, NativeSelect, Text } from '@mantine/core';
import { IconDatabaseImport, IconHistory, IconPencil, IconPlus, IconUpload } from '@tabler/icons-react';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { ButtonLink } from '../../../components/Links';
import { ExportButton } from '../../../components/ExportButton';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { DatasetForm } from '../components/DatasetForm';
import { FromRequests } from '../components/FromRequests';
import { ItemForm } from '../components/ItemForm';
import { UploadItems } from '../components/UploadItems';
import { useArchiveItem, useDataset, useDatasetItems, useDatasetVersions } from '../hooks/useDatasets';
import { changeText, short } from '../lib/values';

const route = getRouteApi('/app/datasets/$id');
type Item = Schema<'DatasetItem'>;
type Dialog = { kind: 'edit' } | { kind: 'item'; item?: Item } | { kind: 'upload' } | { kind: 'requests' } | null;

const COLUMNS: Column<Item>[] = [
  { key: 'i', label: 'Item', width: '.8fr', render: (r) => r.id },
  { key: 'in', label: 'Input', width: '2fr', render: (r) => short(r.input) },
  { key: 'ex', label: 'Expected', width: '2fr', render: (r) => short(r.expected_output) },
  { key: 's', label: 'Split', width: '.6fr', render: (r) => r.split ?? '—' },
  { key: 'st', label: 'Status', width: '.7fr', render: (r) => <StatusBadge value={r.status} /> },
];

/**
 * A dataset's items at its latest version or any past one (`?version=`). Writers edit the
 * dataset, add, edit and delete items, upload a file, or add items from logged requests.
 */
export function DatasetDetailPage() {
  const { id } = route.useParams();
  const { version } = route.useSearch();
  const navigate = useNavigate();
  const { canWrite } = useCurrent();
  const dataset = useDataset(id);
  const versions = useDatasetVersions(id);
  const items = useDatasetItems(id, version);
  const [dialog, setDialog] = useState<Dialog>(null);
  const d = dataset.data;
  const past = Boolean(version);
  const writable = canWrite && !past && d !== undefined;
  const archive = useArchiveItem(id, d?.project_id ?? '');
  const at = versions.data?.find((v) => v.version === version);
  const columns: Column<Item>[] = writable
    ? [
        ...COLUMNS,
        {
          key: 'a',
          label: 'Actions',
          width: '1.1fr',
          render: (r) => (
            <Group gap={6} wrap="nowrap">
              <Button
                size="compact-xs"
                variant="subtle"
                leftSection={<IconPencil size={12} aria-hidden />}
                aria-label={`Edit item ${r.id}`}
                onClick={() => setDialog({ kind: 'item', item: r })}
              >
                Edit
              </Button>
              <ConfirmButton
                size="compact-xs"
                variant="subtle"
                aria-label={`Delete item ${r.id}`}
                title={`Delete item ${r.id}?`}
                message="The item leaves the latest version; past versions keep it."
                loading={archive.isPending && archive.variables === r.id}
                onConfirm={() => archive.mutate(r.id)}
              >
                Delete
              </ConfirmButton>
            </Group>
          ),
        },
      ]
    : COLUMNS;
  const setVersion = (v: string) =>
    void navigate({ to: '/datasets/$id', params: { id }, search: v ? { version: v } : {} });
  const actions = (
    <>
      {canWrite && d && (
        <Button
          size="xs"
          variant="default"
          leftSection={<IconPencil size={14} aria-hidden />}
          onClick={() => setDialog({ kind: 'edit' })}
        >
          Edit
        </Button>
      )}
      <ExportButton resource="dataset_items" filter={{ dataset_id: id, version }} what="the items" />
      <ButtonLink to="/datasets" variant="default" size="xs">
        All datasets
      </ButtonLink>
    </>
  );
  return (
    <Page title={d?.name ?? 'Dataset'} description={d?.description ?? undefined} actions={actions}>
      <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <NativeSelect
            label="Version"
            leftSection={<IconHistory size={14} aria-hidden />}
            value={version ?? ''}
            onChange={(e) => setVersion(e.currentTarget.value)}
            data={[
              { value: '', label: 'Latest' },
              ...(versions.data ?? []).map((v) => ({
                value: v.version,
                label: `${fmt.time(v.version)} · ${changeText(v)}`,
              })),
            ]}
          />
          {d && (
            <Text size="sm" c="dimmed" pb={8}>
              {past
                ? fmt.count(items.data?.length ?? 0, 'item')
                : `${fmt.count(d.items, 'item')} · ${fmt.count(versions.data?.length ?? 0, 'version')}`}
            </Text>
          )}
        </Group>
        {writable && (
          <Group gap="xs" wrap="wrap">
            <Button
              size="xs"
              leftSection={<IconPlus size={14} aria-hidden />}
              onClick={() => setDialog({ kind: 'item' })}
            >
              Add item
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconUpload size={14} aria-hidden />}
              onClick={() => setDialog({ kind: 'upload' })}
            >
              Upload file
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconDatabaseImport size={14} aria-hidden />}
              onClick={() => setDialog({ kind: 'requests' })}
            >
              Add from requests
            </Button>
          </Group>
        )}
      </Group>
      {past && (
        <Alert variant="light" color="blue" title={`As of ${fmt.time(version)}${at ? ` (${changeText(at)})` : ''}`}>
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Text size="sm">A past version is read-only; experiments can pin it. Changes go to the latest.</Text>
            <Button size="xs" variant="default" onClick={() => setVersion('')}>
              Back to the latest
            </Button>
          </Group>
        </Alert>
      )}
      <QueryState
        query={items}
        what="the items"
        empty={{
          title: past ? 'No items at this version' : 'No items yet',
          description: writable
            ? 'Add one, upload a CSV or JSON Lines file, or add logged requests.'
            : 'A writer can add items, upload a file or add logged requests.',
        }}
      >
        {(rows) => <VirtualTable label="Dataset items" rows={rows} columns={columns} rowKey={(r) => r.id} />}
      </QueryState>
      {d && dialog?.kind === 'edit' && <DatasetForm dataset={d} onClose={() => setDialog(null)} />}
      {d && dialog?.kind === 'item' && (
        <ItemForm datasetId={id} projectId={d.project_id} item={dialog.item} onClose={() => setDialog(null)} />
      )}
      {d && dialog?.kind === 'upload' && (
        <UploadItems datasetId={id} projectId={d.project_id} onClose={() => setDialog(null)} />
      )}
      {d && dialog?.kind === 'requests' && (
        <FromRequests datasetId={id} projectId={d.project_id} onClose={() => setDialog(null)} />
      )}
    </Page>
  );
}
