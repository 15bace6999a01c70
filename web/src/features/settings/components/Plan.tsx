import { Badge, Group, Stack } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { Kpis } from '../../../components/Facts';
import { Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import * as fmt from '../../../lib/format';
import { useBilling, useRateLimits } from '../hooks/useSettings';

const windowText = (s: number) => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);

/** The plan with its usage, and each project's rate limits. */
export function Plan() {
  const billing = useBilling();
  const limits = useRateLimits();
  const projects = useProjects();
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id;
  return (
    <Stack gap="xl">
      <Section title="Plan and usage">
        <QueryState query={billing} what="the plan">
          {(b) => (
            <Stack gap="sm">
              <Group gap="xs">Plan <Badge variant="light" radius="sm" tt="none" size="lg">{b.plan}</Badge></Group>
              <Kpis items={[
                ['Projects', fmt.int(b.usage.projects)], ['Members', fmt.int(b.usage.members)], ['API keys', fmt.int(b.usage.api_keys)],
                ['Requests this month', fmt.int(b.usage.requests_this_month)],
              ]} />
            </Stack>
          )}
        </QueryState>
      </Section>
      <Section title="Rate limits">
        <QueryState query={limits} what="rate limits" empty={{ title: 'No rate limits', description: 'Per end user (x-service-user-id) limits are set per project with PUT /api/v1/rate-limits.' }}>
          {(rows) => (
            <DataTable caption="Rate limits" rows={rows} rowKey={(l) => l.project_id} minWidth={520} columns={[
              { key: 'p', label: 'Project', render: (l) => projectName(l.project_id) },
              { key: 'r', label: 'Requests / user', numeric: true, render: (l) => (l.requests_per_window === null ? 'unlimited' : fmt.int(l.requests_per_window)) },
              { key: 't', label: 'Tokens / user', numeric: true, render: (l) => (l.tokens_per_window === null ? 'unlimited' : fmt.int(l.tokens_per_window)) },
              { key: 'w', label: 'Window', render: (l) => windowText(l.window_seconds) },
            ]} />
          )}
        </QueryState>
      </Section>
    </Stack>
  );
}
