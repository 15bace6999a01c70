import { Button, Group, Stack, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { Schema } from '../../../api/types';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { QueryState } from '../../../components/QueryState';
import { type CardCol, ResponsiveTable } from '../../../components/RowCards';
import { HttpStatus } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useAttemptFilter, useAttemptPages } from '../hooks/useAttempts';
import { useWebhooksSearch } from '../hooks/useWebhooksSearch';
import { AttemptFilters } from './AttemptFilters';
import { DeliveryDetail } from './DeliveryDetail';
import { Health } from './Health';

type Attempt = Schema<'WebhookAttempt'>;

// On a phone each attempt is a card headed by its start time.
const columns = (open: (deliveryId: string) => void): CardCol<Attempt>[] => [
  {
    key: 't',
    label: 'Started',
    card: 'title',
    render: (a) => <span style={{ whiteSpace: 'nowrap' }}>{fmt.time(a.started_at)}</span>,
  },
  {
    key: 'd',
    label: 'Delivery',
    render: (a) => (
      <Button
        size="compact-sm"
        variant="subtle"
        ff="monospace"
        aria-label={`Open delivery ${a.delivery_id.slice(0, 8)} (${a.event_type})`}
        title={a.delivery_id}
        onClick={() => open(a.delivery_id)}
      >
        {a.delivery_id.slice(0, 8)}
      </Button>
    ),
  },
  { key: 'e', label: 'Event', render: (a) => a.event_type },
  { key: 'n', label: 'Attempt', numeric: true, render: (a) => `#${a.number}` },
  {
    key: 'h',
    label: 'HTTP',
    numeric: true,
    render: (a) =>
      a.http_status === null ? (
        <Text size="xs" c="dimmed" component="span">
          no answer
        </Text>
      ) : (
        <HttpStatus code={a.http_status} />
      ),
  },
  { key: 'm', label: 'Duration', numeric: true, render: (a) => fmt.ms(a.duration_ms) },
  {
    key: 'x',
    label: 'Error',
    render: (a) => (
      <Text size="xs" c={a.error_message ? undefined : 'dimmed'} lineClamp={2} maw={320} title={a.error_message ?? ''}>
        {a.error_message ?? '—'}
      </Text>
    ),
  },
];

/**
 * Every attempt of a webhook's deliveries, newest first, loaded a page at a time through the API's
 * cursor, with the endpoint's health on top; the filters and the health window live in the URL.
 */
export function AttemptLog({ webhookId, temporalUi }: { webhookId: string; temporalUi: string | null }) {
  const [s, set] = useWebhooksSearch();
  const filter = useAttemptFilter(s);
  const pages = useAttemptPages(webhookId, filter);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.data) ?? [], [pages.data]);
  const [open, setOpen] = useState<string | null>(null);
  const cols = useMemo(() => columns(setOpen), []);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const filtered = Object.keys(filter).length > 0;
  return (
    <Stack gap="sm">
      <Health webhookId={webhookId} window={s.health ?? '24h'} onWindow={(health) => set({ health })} />
      <AttemptFilters s={s} set={set} />
      <QueryState
        query={{ ...pages, data: pages.data ? rows : undefined }}
        what="attempts"
        empty={
          filtered
            ? { title: 'No attempt matches these filters', description: 'Widen the time range or clear a filter.' }
            : { title: 'No attempts yet', description: 'Send a test, or wait for a subscribed event.' }
        }
      >
        {(list) => (
          <>
            <ResponsiveTable
              caption="Attempt log"
              rows={list}
              rowKey={(a) => `${a.delivery_id}:${a.number}`}
              columns={cols}
              minWidth={900}
            />
            <Group gap="sm">
              {hasNextPage && (
                <Button size="xs" variant="default" loading={isFetchingNextPage} onClick={() => void fetchNextPage()}>
                  Load more
                </Button>
              )}
              <Text size="sm" c="dimmed" aria-live="polite" data-testid="attempts-loaded">
                {fmt.count(list.length, 'attempt')} loaded{hasNextPage ? '' : ' (all)'}
              </Text>
            </Group>
          </>
        )}
      </QueryState>
      <DetailDrawer opened={open !== null} onClose={() => setOpen(null)} title="Delivery">
        {open && <DeliveryDetail webhookId={webhookId} deliveryId={open} temporalUi={temporalUi} />}
      </DetailDrawer>
    </Stack>
  );
}
