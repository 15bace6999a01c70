import { Button, Checkbox, Code, Group, Input, Modal, Progress, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { EXPORT_FORMATS, type ExportFormat, type ExportResource } from '../api/enums';
import { useExportStatus, useStartListExport } from '../hooks/useExport';
import * as fmt from '../lib/format';
import { useSession } from '../session/context';
import { AppLink } from './Links';
import { ErrorState } from './QueryState';
import { StatusBadge } from './StatusBadge';

const LABELS: Record<ExportFormat, string> = { csv: 'CSV', jsonl: 'JSON Lines', parquet: 'Parquet' };
/** `1.4 KB`, `3.2 MB`: a file's size as people read it. */
const size = (b: number | null) =>
  b === null
    ? 'unknown size'
    : b < 1024
      ? `${b} bytes`
      : b < 1024 ** 2
        ? `${(b / 1024).toFixed(1)} KB`
        : `${(b / 1024 ** 2).toFixed(1)} MB`;
const WITH_BODIES: ReadonlySet<ExportResource> = new Set(['requests', 'traces', 'spans']);

/** The filter as the API will read it: `model=gpt-4o · status=5xx`, or "every row". */
const summarize = (filter: Record<string, unknown>) => {
  const parts = Object.entries(filter)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return parts.length ? parts.join(' · ') : 'every row';
};

/**
 * "Export" on a list: every row matching the list's current filter (the same query parameters
 * the list sends), as CSV, JSON Lines or Parquet. The export runs in the background; the dialog
 * follows its progress and offers the file when it is written.
 */
export function ExportButton({
  resource,
  filter,
  what,
}: {
  resource: ExportResource;
  filter: Record<string, unknown>;
  what: string;
}) {
  const { projectId } = useSession();
  const [opened, setOpened] = useState(false);
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [bodies, setBodies] = useState(false);
  const [id, setId] = useState<string | null>(null);
  const start = useStartListExport();
  const status = useExportStatus(id);
  const x = status.data;
  const close = () => (setOpened(false), setId(null), start.reset());
  const clean = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined && v !== ''));
  const run = () =>
    start.mutate(
      {
        resource,
        format,
        filter: clean,
        include_bodies: bodies && WITH_BODIES.has(resource),
        ...(projectId ? { project_id: projectId } : {}),
      },
      { onSuccess: (e) => setId(e.id) },
    );
  const href = x?.signed_url ?? x?.download_url ?? null;
  return (
    <>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconDownload size={14} aria-hidden />}
        onClick={() => setOpened(true)}
      >
        Export
      </Button>
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={close} title={`Export ${what}`}>
        <Stack gap="sm">
          <div>
            <Text size="sm">Every row matching the list’s filter, not only the loaded page:</Text>
            <Code block mt={4} data-testid="export-filter" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {summarize(clean)}
            </Code>
          </div>
          {!id && (
            <>
              <Stack gap={4}>
                <Input.Label labelElement="div" id="export-format">
                  Format
                </Input.Label>
                <SegmentedControl
                  aria-labelledby="export-format"
                  value={format}
                  onChange={(v) => setFormat(EXPORT_FORMATS.find((f) => f === v) ?? 'csv')}
                  data={EXPORT_FORMATS.map((f) => ({ value: f, label: LABELS[f] }))}
                />
              </Stack>
              {WITH_BODIES.has(resource) && (
                <Checkbox
                  label="Include bodies (inputs and outputs, as stored)"
                  checked={bodies}
                  onChange={(e) => setBodies(e.currentTarget.checked)}
                />
              )}
              {start.error && <ErrorState error={start.error} title="Could not start the export" />}
              <Group justify="flex-end" gap="sm">
                <Button variant="default" onClick={close}>
                  Cancel
                </Button>
                <Button onClick={run} loading={start.isPending}>
                  Start export
                </Button>
              </Group>
            </>
          )}
          {id && (
            <Stack gap="xs" aria-live="polite" data-testid="export-progress">
              <Group justify="space-between" gap="xs">
                <StatusBadge value={x?.status ?? 'pending'} />
                <Text size="sm" c="dimmed">
                  {fmt.int(x?.rows_written ?? 0)}
                  {x?.estimated_total !== null && x?.estimated_total !== undefined
                    ? ` of ${fmt.int(x.estimated_total)}`
                    : ''}{' '}
                  rows
                </Text>
              </Group>
              <Progress
                value={x?.status === 'completed' ? 100 : (x?.progress ?? 0) * 100}
                animated={x?.status !== 'completed'}
                aria-label="Export progress"
              />
              {x?.status === 'completed' && href && (
                <Group justify="space-between" gap="xs">
                  <Text size="sm">
                    {LABELS[x.format]} file, {size(x.bytes)}
                    {x.expires_at ? `, kept until ${fmt.time(x.expires_at)}` : ''}.
                  </Text>
                  <Button component="a" href={href} download leftSection={<IconDownload size={16} aria-hidden />}>
                    Download
                  </Button>
                </Group>
              )}
              {x?.error && (
                <Text size="sm" c="red.8">
                  {x.error}
                </Text>
              )}
              {status.error && <ErrorState error={status.error} title="Could not read the export" />}
              {x?.status !== 'completed' && (
                <Text size="xs" c="dimmed">
                  The export keeps running if you close this; it is listed under{' '}
                  <AppLink to="/settings" search={{ tab: 'exports' }} size="xs" underline="always">
                    Settings → Exports
                  </AppLink>
                  .
                </Text>
              )}
            </Stack>
          )}
        </Stack>
      </Modal>
    </>
  );
}
