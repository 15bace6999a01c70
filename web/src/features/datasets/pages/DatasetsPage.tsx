import { DataTable } from '../../../components/DataTable';
import { AppLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useDatasets } from '../hooks/useDatasets';

export function DatasetsPage() {
  const list = useDatasets();
  return (
    <Page title="Datasets" description="Versioned inputs and expected outputs for experiments and evaluations.">
      <QueryState query={list} what="datasets" empty={{ title: 'No datasets yet', description: 'Create one with POST /api/v1/datasets and add items (or upload them); every change is a version.' }}>
        {(rows) => (
          <DataTable caption="Datasets" rows={rows} rowKey={(d) => d.id} columns={[
            { key: 'n', label: 'Name', render: (d) => <AppLink to="/datasets/$id" params={{ id: d.id }}>{d.name}</AppLink> },
            { key: 'd', label: 'Description', render: (d) => d.description ?? '—' },
            { key: 'i', label: 'Items', numeric: true, render: (d) => fmt.int(d.items) },
            { key: 'v', label: 'Latest version', render: (d) => fmt.time(d.latest_version) },
          ]} />
        )}
      </QueryState>
    </Page>
  );
}
