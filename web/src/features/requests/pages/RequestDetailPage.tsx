import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { Conversation } from '../../../components/conversation/Conversation';
import { DataTable } from '../../../components/DataTable';
import { Facts } from '../../../components/Facts';
import { AppLink, ButtonLink } from '../../../components/Links';
import { Page, Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { ShareButton } from '../../../components/ShareButton';
import { HttpStatus } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { AddToCampaign } from '../../annotation/components/AddToCampaign';
import { RequestActions } from '../components/RequestActions';
import { useRequest } from '../hooks/useRequests';
import { PromptVersionLink } from '../../prompts/components/PromptVersionLink';

const route = getRouteApi('/app/requests/$id');

/**
 * One call: its conversation (raw JSON a click away), cost, cache, tokens, latency, trace and scores; add a score or
 * add it to a dataset.
 */
export function RequestDetailPage() {
  const { id } = route.useParams();
  const request = useRequest(id);
  const { canWrite } = useCurrent();
  return (
    <Page
      title="Request"
      description={
        request.data
          ? `${request.data.provider} / ${request.data.model} · ${fmt.time(request.data.created_at)}`
          : undefined
      }
      actions={
        <ButtonLink to="/requests" variant="default" size="xs">
          All requests
        </ButtonLink>
      }
    >
      <QueryState query={request} what="the request">
        {(r) => (
          <Stack gap="lg">
            {canWrite && (
              <Group gap="sm">
                <RequestActions request={r} />
                <AddToCampaign target={{ request_id: r.id }} projectId={r.project_id} what="call" />
                <ShareButton type="request" id={r.id} projectId={r.project_id} />
              </Group>
            )}
            <Paper withBorder p="md">
              <Facts items={facts(r)} />
            </Paper>
            <Section title="Conversation">
              <Conversation
                request={r.request_body}
                response={r.response_body}
                provider={r.provider}
                empty={`Not logged (log mode ${r.log_mode})`}
              />
            </Section>
            <Section title={`Scores (${r.scores.length})`}>
              {r.scores.length ? (
                <DataTable
                  caption="Scores of this request"
                  rows={r.scores}
                  rowKey={(s) => s.id}
                  minWidth={560}
                  columns={[
                    { key: 'n', label: 'Name', render: (s) => s.name },
                    { key: 'v', label: 'Value', render: (s) => s.string_value ?? fmt.int(s.value) },
                    { key: 's', label: 'Source', render: (s) => s.source },
                    { key: 'c', label: 'Comment', render: (s) => s.comment ?? '—' },
                    { key: 't', label: 'Added', render: (s) => fmt.time(s.created_at) },
                  ]}
                />
              ) : (
                <Text size="sm" c="dimmed">
                  No score yet{canWrite ? ': add one above, or let an evaluator score it.' : '.'}
                </Text>
              )}
            </Section>
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}

function facts(r: Schema<'RequestDetail'>): [string, ReactNode][] {
  return [
    ['Model', `${r.provider} / ${r.model}`],
    [
      'Status',
      <Group gap="xs" key="s">
        <HttpStatus code={r.status_code} />
        {r.error}
      </Group>,
    ],
    [
      'Cost',
      <Group gap="xs" key="c">
        {fmt.usd(r.cost_usd)}
        {r.cache_hit && (
          <Badge variant="light" color="teal" size="sm">
            cache hit, saved {fmt.usd(r.cost_saved_usd)}
          </Badge>
        )}
      </Group>,
    ],
    [
      'Tokens',
      `${fmt.int(r.prompt_tokens)} in / ${fmt.int(r.completion_tokens)} out` +
        `${r.tokens_estimated ? ' (estimated)' : ''}` +
        `${r.cache_read_tokens ? `, ${fmt.int(r.cache_read_tokens)} cached` : ''}`,
    ],
    ['Latency', `${fmt.ms(r.latency_ms)} (first byte ${fmt.ms(r.ttfb_ms)})${r.streamed ? ', streamed' : ''}`],
    ['Prompt version', r.prompt_version_id ? <PromptVersionLink key="pv" id={r.prompt_version_id} /> : '—'],
    [
      'Trace',
      r.trace_id ? (
        <AppLink to="/traces/$id" params={{ id: r.trace_id }}>
          {r.trace_id}
        </AppLink>
      ) : (
        '—'
      ),
    ],
    [
      'User',
      r.user_id ? (
        <AppLink to="/users/$id" params={{ id: r.user_id }}>
          {r.user_id}
        </AppLink>
      ) : (
        '—'
      ),
    ],
    [
      'Session',
      r.session_id ? (
        <AppLink to="/sessions/$id" params={{ id: r.session_id }}>
          {r.session_id}
        </AppLink>
      ) : (
        '—'
      ),
    ],
    [
      'Properties',
      Object.entries(r.properties ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(' · ') || '—',
    ],
  ];
}
