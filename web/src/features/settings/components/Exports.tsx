import { Anchor, Button, Group, NativeSelect, Progress, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { EXPORT_FORMATS, type ExportFormat, type ExportResource } from '../../../api/enums';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import { useExports, useStartExport } from '../hooks/useSettings';

const RESOURCES = ['requests', 'traces', 'spans', 'sessions', 'scores'] as const satisfies readonly ExportResource[];

const Download = ({ href }: { href: string | null }) =>
  href ? (
    <Anchor href={href} size="sm">
      Download
    </Anchor>
  ) : (
    <>—</>
  );

/** Exports of the request log and traces as files, with progress and a download link. */
export function Exports() {
  const list = useExports();
  const start = useStartExport();
  const { projectId } = useSession();
  const form = useForm<{ resource: ExportResource; format: ExportFormat }>({
    initialValues: { resource: 'requests', format: 'csv' },
  });
  return (
    <Section title="Exports">
      <form onSubmit={form.onSubmit((v) => start.mutate({ ...v, ...(projectId ? { project_id: projectId } : {}) }))}>
        <Group align="flex-end" gap="sm">
          <NativeSelect label="Resource" data={[...RESOURCES]} {...form.getInputProps('resource')} />
          <NativeSelect label="Format" data={[...EXPORT_FORMATS]} {...form.getInputProps('format')} />
          <Button type="submit" loading={start.isPending}>
            Export
          </Button>
        </Group>
        {start.error && <ErrorState error={start.error} title="Could not start the export" />}
      </form>
      <QueryState
        query={list}
        what="exports"
        empty={{
          title: 'No exports yet',
          description: 'Start one above; large exports run in the background and keep their file for a while.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Exports"
            rows={rows}
            rowKey={(x) => x.id}
            minWidth={760}
            columns={[
              { key: 'r', label: 'Resource', render: (x) => `${x.resource} · ${x.format}` },
              { key: 's', label: 'Status', render: (x) => <StatusBadge value={x.status} /> },
              {
                key: 'p',
                label: 'Progress',
                render: (x) =>
                  x.status === 'running' && x.progress !== null ? (
                    <Group gap="xs" wrap="nowrap">
                      <Progress value={x.progress * 100} w={80} size="sm" aria-label="Export progress" />
                      <Text size="xs">{fmt.pct(x.progress)}</Text>
                    </Group>
                  ) : (
                    '—'
                  ),
              },
              { key: 'n', label: 'Rows', numeric: true, render: (x) => fmt.int(x.rows_written) },
              { key: 'c', label: 'Started', render: (x) => fmt.time(x.created_at) },
              { key: 'f', label: 'File', render: (x) => <Download href={x.signed_url ?? x.download_url} /> },
            ]}
          />
        )}
      </QueryState>
    </Section>
  );
}
