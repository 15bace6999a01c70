import { Alert, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { Facts } from '../../../components/Facts';
import { JsonBlock } from '../../../components/Json';
import { AppLink } from '../../../components/Links';
import { StatusBadge } from '../../../components/StatusBadge';
import { useIsPhone } from '../../../components/useIsPhone';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { short } from '../../datasets/lib/values';
import { type Run, runKey, scoresText } from '../lib/runs';
import { ItemRunCards } from './ItemRunCards';

const COLUMNS: Column<Run>[] = [
  { key: 'i', label: 'Item', width: 'minmax(64px, .7fr)', render: (r) => r.item_id },
  { key: 'r', label: 'Run', width: '48px', render: (r) => `#${r.repetition + 1}` },
  // Wide enough for "completed": a badge cut to "com…" says nothing.
  { key: 's', label: 'Status', width: '104px', render: (r) => <StatusBadge value={r.status} /> },
  {
    key: 'o',
    label: 'Output',
    width: '2.4fr',
    render: (r) =>
      r.error ? (
        <Text span c="var(--mantine-color-error)" size="sm">
          {r.error}
        </Text>
      ) : (
        short(r.output)
      ),
  },
  { key: 'sc', label: 'Scores', width: '1.4fr', render: scoresText },
  { key: 'l', label: 'Latency', width: '.7fr', render: (r) => fmt.ms(r.latency_ms) },
  { key: 'c', label: 'Cost', width: '.8fr', render: (r) => fmt.usd(r.cost_usd) },
];

/**
 * An experiment's item runs (each repetition of each dataset item): output, scores, latency and
 * cost; more pages load as the list scrolls. A row opens with the whole output and its call. On a
 * phone each run is a card (`ItemRunCards`) instead of a table row scrolled sideways.
 */
export function ItemRuns({ rows, onEnd }: { rows: Run[]; onEnd: () => void }) {
  const [open, setOpen] = useState<Run | null>(null);
  const phone = useIsPhone();
  return (
    <>
      {phone ? (
        <ItemRunCards label="Item runs" rows={rows} onEnd={onEnd} onOpen={setOpen} />
      ) : (
        <VirtualTable
          label="Item runs"
          rows={rows}
          columns={COLUMNS}
          rowKey={runKey}
          onEnd={onEnd}
          onOpen={setOpen}
          height={480}
        />
      )}
      <DetailDrawer
        opened={open !== null}
        onClose={() => setOpen(null)}
        title={open ? `Item ${open.item_id}, run #${open.repetition + 1}` : 'Item run'}
      >
        {open && (
          <Stack gap="md">
            {open.error && (
              <Alert color="red" variant="light" title="This run failed">
                {open.error}
              </Alert>
            )}
            <Facts
              items={[
                ['Status', <StatusBadge key="s" value={open.status} />],
                ['Scores', scoresText(open)],
                ['Latency', fmt.ms(open.latency_ms)],
                ['Cost', fmt.usd(open.cost_usd)],
                [
                  'Call',
                  open.request_id ? (
                    <AppLink key="r" to="/requests/$id" params={{ id: open.request_id }}>
                      Open the call
                    </AppLink>
                  ) : (
                    '—'
                  ),
                ],
                [
                  'Trace',
                  open.trace_id ? (
                    <AppLink key="t" to="/traces/$id" params={{ id: open.trace_id }}>
                      Open the trace
                    </AppLink>
                  ) : (
                    '—'
                  ),
                ],
              ]}
            />
            <Title order={3} size="h5">
              Output
            </Title>
            <JsonBlock label="Output" value={open.output} empty="No output (yet)" />
          </Stack>
        )}
      </DetailDrawer>
    </>
  );
}
