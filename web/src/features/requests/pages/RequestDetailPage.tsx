import { Badge, Group, Paper, SimpleGrid, Stack } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { Facts } from '../../../components/Facts';
import { JsonBlock } from '../../../components/Json';
import { AppLink, ButtonLink } from '../../../components/Links';
import { Page, Section } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { ShareButton } from '../../../components/ShareButton';
import { HttpStatus } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useRequest } from '../hooks/useRequests';

const route = getRouteApi('/app/requests/$id');

/** One call: bodies as stored (masked), cost, cache, tokens, prompt version, linked trace, scores. */
export function RequestDetailPage() {
  const { id } = route.useParams();
  const request = useRequest(id);
  const { canWrite } = useCurrent();
  return (
    <Page title="Request" description={request.data ? `${request.data.provider} / ${request.data.model} · ${fmt.time(request.data.created_at)}` : undefined} actions={<ButtonLink to="/requests" variant="default" size="xs">All requests</ButtonLink>}>
      <QueryState query={request} what="the request">
        {(r) => (
          <Stack gap="lg">
            {canWrite && <ShareButton type="request" id={r.id} projectId={r.project_id} />}
            <Paper withBorder p="md"><Facts items={facts(r)} /></Paper>
            <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
              <Section title="Request body"><JsonBlock label="Request body" value={r.request_body} empty={`Not logged (log mode ${r.log_mode})`} /></Section>
              <Section title="Response body"><JsonBlock label="Response body" value={r.response_body} empty={`Not logged (log mode ${r.log_mode})`} /></Section>
            </SimpleGrid>
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}

function facts(r: Schema<'RequestDetail'>): [string, ReactNode][] {
  return [
    ['Model', `${r.provider} / ${r.model}`],
    ['Status', <Group gap="xs" key="s"><HttpStatus code={r.status_code} />{r.error}</Group>],
    ['Cost', <Group gap="xs" key="c">{fmt.usd(r.cost_usd)}{r.cache_hit && <Badge variant="light" color="teal" size="sm">cache hit, saved {fmt.usd(r.cost_saved_usd)}</Badge>}</Group>],
    ['Tokens', `${fmt.int(r.prompt_tokens)} in / ${fmt.int(r.completion_tokens)} out${r.tokens_estimated ? ' (estimated)' : ''}`],
    ['Latency', `${fmt.ms(r.latency_ms)} (first byte ${fmt.ms(r.ttfb_ms)})${r.streamed ? ', streamed' : ''}`],
    ['Prompt version', r.prompt_version_id ?? '—'],
    ['Trace', r.trace_id ? <AppLink to="/traces/$id" params={{ id: r.trace_id }}>{r.trace_id}</AppLink> : '—'],
    ['User', r.user_id ? <AppLink to="/users/$id" params={{ id: r.user_id }}>{r.user_id}</AppLink> : '—'],
    ['Session', r.session_id ? <AppLink to="/sessions/$id" params={{ id: r.session_id }}>{r.session_id}</AppLink> : '—'],
    ['Scores', r.scores.length ? r.scores.map((s) => `${s.name}: ${s.string_value ?? s.value ?? '—'}`).join(', ') : '—'],
  ];
}
