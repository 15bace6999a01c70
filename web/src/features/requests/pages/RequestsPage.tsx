import { Button, CopyButton, Text } from '@mantine/core';
import { IconCheck, IconLink } from '@tabler/icons-react';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo, useState } from 'react';
import { SelectFilter } from '../../../components/Filters';
import { ButtonLink } from '../../../components/Links';
import { ExportButton } from '../../../components/ExportButton';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { VirtualTable } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { useSavedFilters } from '../../overview/hooks/useStats';
import { ColumnChooser, useColumns } from '../components/Columns';
import { FilterBuilder } from '../components/FilterBuilder';
import { LiveToggle, RangeControl } from '../components/ListControls';
import { useRequestPages } from '../hooks/useRequests';
import { rangeWindow, SEARCH_KEYS, searchToQuery, type FilterSearch } from '../lib/filters';

const route = getRouteApi('/app/requests');

const DESCRIPTION =
  'Every call through the gateway: open one for its conversation, cost and trace (arrows and Enter work).';

/**
 * The request log: a filter builder over the API's filter language, a date range, a saved
 * filter, chosen columns and a live tail. Everything but the columns and the tail lives in the
 * URL, so a view is shared by its link. Keyset pages load as the virtual list nears its end.
 */
export function RequestsPage() {
  const search = route.useSearch();
  const setSearch = route.useNavigate();
  const navigate = useNavigate();
  const saved = useSavedFilters('requests');
  const { keys, columns, setKeys } = useColumns();
  const filters = useMemo(
    () =>
      Object.fromEntries(SEARCH_KEYS.filter((k) => search[k] !== undefined).map((k) => [k, search[k]])) as FilterSearch,
    [search],
  );
  // A preset is "the last N hours" from when it was chosen (or the page opened); the tail adds what comes after.
  const anchor = useMemo(() => Date.now(), [search.range]);
  const query = useMemo(
    () =>
      searchToQuery(
        { ...filters, saved_filter_id: search.saved_filter_id },
        rangeWindow(search.range, { from: search.from, to: search.to }, anchor),
      ),
    [filters, search.saved_filter_id, search.range, search.from, search.to, anchor],
  );
  const [live, setLive] = useState(false);
  const [hovered, setHovered] = useState(false);
  const [scrolled, setScrolled] = useState(false);
  const paused = hovered || scrolled;
  const pages = useRequestPages(query, live && !paused);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.data) ?? [], [pages.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const more = useCallback(
    () => void (hasNextPage && !isFetchingNextPage && fetchNextPage()),
    [hasNextPage, isFetchingNextPage, fetchNextPage],
  );
  const filtered = Object.keys(filters).length > 0 || !!search.saved_filter_id || !!search.range;
  const applyFilters = (next: FilterSearch) =>
    void setSearch({
      search: (s) =>
        clean({
          ...Object.fromEntries(Object.entries(s).filter(([k]) => !(SEARCH_KEYS as readonly string[]).includes(k))),
          ...next,
        }),
    });
  return (
    <Page
      title="Requests"
      description={DESCRIPTION}
      actions={
        <>
          <ExportButton resource="requests" filter={query} what="requests" />
          <CopyButton value={typeof location === 'undefined' ? '' : location.href}>
            {({ copied, copy }) => (
              <Button
                size="xs"
                variant="default"
                leftSection={copied ? <IconCheck size={14} aria-hidden /> : <IconLink size={14} aria-hidden />}
                onClick={copy}
              >
                {copied ? 'Link copied' : 'Copy link to this view'}
              </Button>
            )}
          </CopyButton>
        </>
      }
      filters={
        <>
          <RangeControl
            range={search.range}
            from={search.from}
            to={search.to}
            onChange={(v) =>
              void setSearch({ search: (s) => clean({ ...s, range: v.range, from: v.from, to: v.to }), replace: true })
            }
          />
          {/* Offered once there is one to choose (Settings → Saved filters), or when the URL names one. */}
          {(saved.data?.length || search.saved_filter_id) && (
            <SelectFilter
              label="Saved filter"
              value={search.saved_filter_id}
              anyLabel="none"
              w={180}
              options={(saved.data ?? []).map((f) => ({ value: f.id, label: f.name }))}
              onApply={(v) => void setSearch({ search: (s) => clean({ ...s, saved_filter_id: v }), replace: true })}
            />
          )}
          <ColumnChooser keys={keys} onChange={setKeys} />
          <LiveToggle on={live} paused={paused} onChange={(on) => (setLive(on), on && void pages.refetch())} />
          <FilterBuilder key={JSON.stringify(filters)} value={filters} onApply={applyFilters} />
        </>
      }
    >
      <QueryState
        query={{ ...pages, data: pages.data ? rows : undefined }}
        what="the request log"
        empty={
          filtered
            ? {
                title: 'No request matches these filters',
                description: 'Widen the date range, or loosen or clear a filter.',
                action: (
                  <ButtonLink to="/requests" variant="default">
                    Clear filters
                  </ButtonLink>
                ),
              }
            : {
                title: 'No requests yet',
                description: 'Point an SDK at the gateway with a project key: every call is logged here.',
                action: <ButtonLink to="/">See how on the overview</ButtonLink>,
              }
        }
      >
        {(list) => (
          <>
            <div
              onMouseEnter={() => setHovered(true)}
              onMouseLeave={() => setHovered(false)}
              onScrollCapture={(e) => {
                const t = e.target as HTMLElement;
                if (t.getAttribute('role') === 'rowgroup') setScrolled(t.scrollTop > 0);
              }}
            >
              <VirtualTable
                label="Requests"
                rows={list}
                columns={columns}
                rowKey={(r) => r.id}
                onEnd={more}
                onOpen={(r) => void navigate({ to: '/requests/$id', params: { id: r.id } })}
              />
            </div>
            <Text size="sm" c="dimmed" aria-live="polite">
              {fmt.int(list.length)} loaded{hasNextPage ? (isFetchingNextPage ? ', loading more…' : '') : ' (all)'}
            </Text>
          </>
        )}
      </QueryState>
    </Page>
  );
}
