import { Button, Stack, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { DataTable } from '../../../components/DataTable';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { SelectFilter } from '../../../components/Filters';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { clean } from '../../../lib/search';
import { RecommendationDetail } from '../components/RecommendationDetail';
import { useRecommendations } from '../hooks/useRecommendations';
import { RECOMMENDATION_STATUSES } from '../search';

const route = getRouteApi('/app/recommendations');

/** Recommendations: the list with a status filter; one opens beside it (`?id=`) with its evidence. */
export function RecommendationsPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const set = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => clean({ ...s, ...patch }), replace: true });
  const list = useRecommendations(clean({ status: search.status }));
  return (
    <Page
      title="Recommendations"
      description="Ways to spend less or fail less, computed from your request log, with the monthly saving."
      filters={
        <SelectFilter
          label="Status"
          value={search.status}
          options={RECOMMENDATION_STATUSES}
          onApply={(v) => set({ status: v })}
        />
      }
    >
      <QueryState
        query={list}
        what="recommendations"
        empty={{
          title: search.status === 'dismissed' ? 'No dismissed recommendations' : 'No recommendations',
          description:
            'They appear once there is enough traffic to compare models, cache repeats or spot growing prompts; ' +
            'they are recomputed daily.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Recommendations"
            rows={rows}
            rowKey={(r) => r.id}
            minWidth={840}
            columns={[
              {
                key: 't',
                label: 'Recommendation',
                render: (r) => (
                  <Stack gap={2}>
                    <Text size="sm" fw={500}>
                      {r.title}
                    </Text>
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {r.detail}
                    </Text>
                  </Stack>
                ),
              },
              { key: 'k', label: 'Kind', render: (r) => r.kind.replace(/_/g, ' ') },
              { key: 's', label: 'Saving / month', numeric: true, render: (r) => fmt.usd(r.monthly_saving_usd) },
              { key: 'st', label: 'Status', render: (r) => <StatusBadge value={r.status} /> },
              { key: 'c', label: 'Computed', render: (r) => fmt.time(r.computed_at) },
              {
                key: 'x',
                label: 'Details',
                render: (r) => (
                  <Button
                    size="compact-sm"
                    variant="default"
                    aria-label={`Open ${r.title}`}
                    onClick={() => set({ id: r.id })}
                  >
                    Open
                  </Button>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      <DetailDrawer opened={!!search.id} onClose={() => set({ id: undefined })} title="Recommendation">
        {search.id && <RecommendationDetail id={search.id} />}
      </DetailDrawer>
    </Page>
  );
}
