import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useCurrent } from '../../../app/current';
import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { DatasetForm } from '../components/DatasetForm';
import { useDatasets } from '../hooks/useDatasets';

export function DatasetsPage() {
  const list = useDatasets();
  const { canWrite } = useCurrent();
  const [creating, setCreating] = useState(false);
  const create = canWrite ? (
    <Button size="xs" leftSection={<IconPlus size={14} aria-hidden />} onClick={() => setCreating(true)}>
      New dataset
    </Button>
  ) : undefined;
  return (
    <Page
      title="Datasets"
      description="Versioned inputs and expected outputs for experiments and evaluations."
      actions={create}
    >
      <QueryState
        query={list}
        what="datasets"
        empty={{
          title: 'No datasets yet',
          description: canWrite
            ? 'Create one with “New dataset”, then add items, upload a file or add logged requests; ' +
              'every change is a version.'
            : 'A writer can create one; every change to it is a version.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Datasets"
            rows={rows}
            rowKey={(d) => d.id}
            columns={[
              {
                key: 'n',
                label: 'Name',
                render: (d) => (
                  <AppLink to="/datasets/$id" params={{ id: d.id }}>
                    {d.name}
                  </AppLink>
                ),
              },
              { key: 'd', label: 'Description', render: (d) => d.description ?? '—' },
              { key: 'i', label: 'Items', numeric: true, render: (d) => fmt.int(d.items) },
              { key: 'v', label: 'Latest version', render: (d) => fmt.time(d.latest_version) },
            ]}
          />
        )}
      </QueryState>
      {creating && <DatasetForm onClose={() => setCreating(false)} />}
    </Page>
  );
}
