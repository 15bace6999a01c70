import { SimpleGrid, Stack } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { useMemo } from 'react';
import type { RequestPoint } from '../../../api/stats';
import { Chart } from '../../../components/Chart';
import { DataTable } from '../../../components/DataTable';
import { Kpis } from '../../../components/Facts';
import { AppLink, ButtonLink } from '../../../components/Links';
import { Page, Section } from '../../../components/Page';
import { EmptyView, QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useEndUser } from '../hooks/useUsers';

const route = getRouteApi('/app/users/$id');

export function UserDetailPage() {
  const { id } = route.useParams();
  const user = useEndUser(id);
  return (
    <Page
      title={`User ${id}`}
      actions={
        <ButtonLink to="/users" variant="default" size="xs">
          All users
        </ButtonLink>
      }
    >
      <QueryState query={user} what="the user">
        {(u) => (
          <Stack gap="lg">
            <Kpis
              items={[
                ['Spend', fmt.usd(u.cost_usd)],
                ['Requests', fmt.int(u.requests)],
                ['Error rate', fmt.pct(u.error_rate)],
                ['Sessions', fmt.int(u.sessions)],
                [
                  'Rate limit',
                  u.rate_limit?.requests_limit
                    ? `${fmt.int(u.rate_limit.requests)} / ${fmt.int(u.rate_limit.requests_limit)}`
                    : 'none',
                ],
              ]}
            />
            <Spend series={u.stats.series} />
            <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
              <Section title="Latest requests">
                {u.latest_requests.length ? (
                  <DataTable
                    caption="Latest requests"
                    rows={u.latest_requests}
                    rowKey={(r) => r.id}
                    minWidth={420}
                    columns={[
                      {
                        key: 't',
                        label: 'Time',
                        render: (r) => (
                          <AppLink to="/requests/$id" params={{ id: r.id }}>
                            {fmt.time(r.created_at)}
                          </AppLink>
                        ),
                      },
                      { key: 'm', label: 'Model', render: (r) => r.model },
                      { key: 'c', label: 'Cost', numeric: true, render: (r) => fmt.usd(r.cost_usd) },
                    ]}
                  />
                ) : (
                  <EmptyView title="No requests" />
                )}
              </Section>
              <Section title="Latest sessions">
                {u.latest_sessions.length ? (
                  <DataTable
                    caption="Latest sessions"
                    rows={u.latest_sessions}
                    rowKey={(s) => s.session_id}
                    minWidth={420}
                    columns={[
                      {
                        key: 's',
                        label: 'Session',
                        render: (s) => (
                          <AppLink to="/sessions/$id" params={{ id: s.session_id }}>
                            {s.session_id}
                          </AppLink>
                        ),
                      },
                      { key: 'r', label: 'Requests', numeric: true, render: (s) => fmt.int(s.requests) },
                      { key: 'c', label: 'Cost', numeric: true, render: (s) => fmt.usd(s.cost_usd) },
                    ]}
                  />
                ) : (
                  <EmptyView title="No sessions" />
                )}
              </Section>
            </SimpleGrid>
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}

function Spend({ series }: { series: RequestPoint[] }) {
  const data = useMemo(
    () => ({ x: series.map((p) => p.bucket), s: [{ label: 'cost', values: series.map((p) => p.cost_usd) }] }),
    [series],
  );
  return <Chart title="Spend (USD)" unit="usd" x={data.x} series={data.s} />;
}
