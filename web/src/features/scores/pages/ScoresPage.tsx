import { Text } from '@mantine/core';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import type { Schema } from '../../../api/types';
import { ExportButton } from '../../../components/ExportButton';
import { SelectFilter, TextFilter } from '../../../components/Filters';
import { ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { VirtualTable, type Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { DateFilter, ScoreTarget, ScoreValue } from '../components/ScoreParts';
import { DATA_TYPES, SOURCES, TARGETS, useScorePages, type ScoreFilter } from '../hooks/useScores';

const route = getRouteApi('/app/scores');
type Score = Schema<'Score'>;
const TARGET_LABELS = TARGETS.map((t) => ({ value: t, label: t === 'experiment_item' ? 'experiment item' : t }));

const COLUMNS: Column<Score>[] = [
  { key: 't', label: 'Created', width: '1.6fr', render: (s) => fmt.time(s.created_at) },
  { key: 'n', label: 'Name', width: '1.1fr', render: (s) => s.name },
  { key: 'v', label: 'Value', width: '.9fr', render: (s) => <ScoreValue s={s} /> },
  { key: 'd', label: 'Type', width: '.9fr', render: (s) => s.data_type },
  { key: 's', label: 'Source', width: '.7fr', render: (s) => s.source },
  { key: 'g', label: 'On', width: '1.4fr', render: (s) => <ScoreTarget s={s} /> },
  {
    key: 'c',
    label: 'Comment',
    width: '1.6fr',
    render: (s) => (
      <Text size="sm" truncate>
        {s.comment ?? ''}
      </Text>
    ),
  },
];

/** Where a score row opens: its target's page. */
const targetOf = (s: Score) =>
  s.request_id
    ? { to: '/requests/$id' as const, params: { id: s.request_id } }
    : s.trace_id
      ? { to: '/traces/$id' as const, params: { id: s.trace_id }, search: s.span_id ? { span: s.span_id } : {} }
      : s.session_id
        ? { to: '/sessions/$id' as const, params: { id: s.session_id } }
        : s.experiment_id
          ? { to: '/experiments/$id' as const, params: { id: s.experiment_id } }
          : { to: '/experiments' as const };

/** Every score (API, evaluators, annotation), filtered in the URL, each linked to what it scores. */
export function ScoresPage() {
  const search = route.useSearch();
  const setSearch = route.useNavigate();
  const navigate = useNavigate();
  const filter: ScoreFilter = clean({
    name: search.name,
    data_type: search.data_type,
    source: search.source,
    target_type: search.target_type,
    from: search.from,
    to: search.to,
  });
  const pages = useScorePages(filter);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.data) ?? [], [pages.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const more = useCallback(
    () => void (hasNextPage && !isFetchingNextPage && fetchNextPage()),
    [hasNextPage, isFetchingNextPage, fetchNextPage],
  );
  const set = (patch: Partial<typeof search>) =>
    void setSearch({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const filtered = Object.keys(filter).length > 0;
  return (
    <Page
      title="Scores"
      description={
        'Every score: from the API, evaluators and annotators. ' +
        'Open one for the request, trace, session or experiment it judges.'
      }
      actions={<ExportButton resource="scores" filter={filter} what="scores" />}
      filters={
        <>
          <TextFilter label="Name" value={search.name} onApply={(v) => set({ name: v })} />
          <SelectFilter
            label="Type"
            value={search.data_type}
            options={DATA_TYPES}
            onApply={(v) => set({ data_type: v })}
            w={140}
          />
          <SelectFilter
            label="Source"
            value={search.source}
            options={SOURCES}
            onApply={(v) => set({ source: v })}
            w={140}
          />
          <SelectFilter
            label="On"
            value={search.target_type}
            options={TARGET_LABELS}
            onApply={(v) => set({ target_type: v })}
            w={160}
          />
          <DateFilter label="From" value={search.from} onApply={(v) => set({ from: v })} />
          <DateFilter label="To" value={search.to} onApply={(v) => set({ to: v })} />
        </>
      }
    >
      <QueryState
        query={{ ...pages, data: pages.data ? rows : undefined }}
        what="scores"
        empty={
          filtered
            ? {
                title: 'No score matches these filters',
                description: 'Widen the dates, or loosen or clear a filter.',
                action: (
                  <ButtonLink to="/scores" variant="default">
                    Clear filters
                  </ButtonLink>
                ),
              }
            : {
                title: 'No scores yet',
                description: 'Score a request from its page, run an evaluator, or annotate: scores land here.',
                action: <ButtonLink to="/evaluators">Set up an evaluator</ButtonLink>,
              }
        }
      >
        {(list) => (
          <>
            <VirtualTable
              label="Scores"
              rows={list}
              columns={COLUMNS}
              rowKey={(s) => s.id}
              onEnd={more}
              onOpen={(s) => void navigate(targetOf(s))}
            />
            <Text size="sm" c="dimmed" aria-live="polite">
              {fmt.int(list.length)} loaded{hasNextPage ? (isFetchingNextPage ? ', loading more…' : '') : ' (all)'}
            </Text>
          </>
        )}
      </QueryState>
    </Page>
  );
}
