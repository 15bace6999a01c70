import { Text } from '@mantine/core';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import type { Schema } from '../../../api/types';
import { TextFilter } from '../../../components/Filters';
import { ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { HttpStatus } from '../../../components/StatusBadge';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { useRequestPages } from '../hooks/useRequests';
import { REQUEST_FILTERS } from '../search';

const FILTER_LABELS = { model: 'Model', provider: 'Provider', user_id: 'User', status: 'Status' } as const;
const FILTER_HINTS = { model: 'any', provider: 'any', user_id: 'any', status: 'e.g. 200, 4xx' } as const;

const route = getRouteApi('/app/requests');
type Row = Schema<'RequestRecord'>;

const COLUMNS: Column<Row>[] = [
  { key: 't', label: 'Time', width: '1.5fr', render: (r) => fmt.time(r.created_at) },
  { key: 'm', label: 'Model', width: '1.3fr', render: (r) => r.model },
  { key: 's', label: 'Status', width: '.7fr', render: (r) => <HttpStatus code={r.status_code} /> },
  { key: 'tok', label: 'Tokens', width: '.8fr', render: (r) => fmt.int(r.total_tokens) },
  { key: 'c', label: 'Cost', width: '.9fr', render: (r) => fmt.usd(r.cost_usd) },
  { key: 'l', label: 'Latency', width: '.8fr', render: (r) => fmt.ms(r.latency_ms) },
  { key: 'u', label: 'User', width: '1fr', render: (r) => r.user_id ?? '—' },
];

/** The request log: filters in the URL, keyset pages loaded as the virtual list nears its end. */
export function RequestsPage() {
  const search = route.useSearch();
  const setSearch = route.useNavigate();
  const navigate = useNavigate();
  const filter = useMemo(() => clean({ model: search.model, provider: search.provider, user_id: search.user_id, status: search.status }), [search]);
  const pages = useRequestPages(filter);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.data) ?? [], [pages.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const more = useCallback(() => void (hasNextPage && !isFetchingNextPage && fetchNextPage()), [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const filtered = Object.keys(filter).length > 0;
  return (
    <Page
      title="Requests"
      description="Every call through the gateway: open one for its bodies, cost and trace (arrows and Enter work)."
      filters={REQUEST_FILTERS.map((k) => (
        <TextFilter key={k} label={FILTER_LABELS[k]} placeholder={FILTER_HINTS[k]} value={search[k]} onApply={(v) => void setSearch({ search: (s) => clean({ ...s, [k]: v }), replace: true })} />
      ))}
    >
      <QueryState
        query={{ ...pages, data: pages.data ? rows : undefined }}
        what="the request log"
        empty={filtered
          ? { title: 'No request matches these filters', description: 'Loosen or clear a filter.', action: <ButtonLink to="/requests" variant="default">Clear filters</ButtonLink> }
          : { title: 'No requests yet', description: 'Point an SDK at the gateway with a project key: every call is logged here.', action: <ButtonLink to="/">See how on the overview</ButtonLink> }}
      >
        {(list) => (
          <>
            <VirtualTable label="Requests" rows={list} columns={COLUMNS} rowKey={(r) => r.id} onEnd={more} onOpen={(r) => void navigate({ to: '/requests/$id', params: { id: r.id } })} />
            <Text size="sm" c="dimmed" aria-live="polite">{fmt.int(list.length)} loaded{hasNextPage ? (isFetchingNextPage ? ', loading more…' : '') : ' (all)'}</Text>
          </>
        )}
      </QueryState>
    </Page>
  );
}
