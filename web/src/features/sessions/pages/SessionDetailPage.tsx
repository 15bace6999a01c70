import { Group, Paper, Stack, Text, Timeline } from '@mantine/core';
import { IconBinaryTree, IconMessage } from '@tabler/icons-react';
import { getRouteApi } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { Kpis } from '../../../components/Facts';
import { JsonBlock } from '../../../components/Json';
import { AppLink, ButtonLink } from '../../../components/Links';
import { Page } from '../../../components/Page';
import { EmptyView, QueryState } from '../../../components/QueryState';
import { ShareButton } from '../../../components/ShareButton';
import { HttpStatus } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useSessionDetail } from '../hooks/useSessions';

const route = getRouteApi('/app/sessions/$id');
type Session = Schema<'Session'>;
type Turn =
  | { at: string; kind: 'request'; r: Session['requests'][number] }
  | { at: string; kind: 'trace'; t: Session['traces'][number] };

/** A session as a conversation: its traces and calls in time order, each with what was said. */
export function SessionDetailPage() {
  const { id } = route.useParams();
  const session = useSessionDetail(id);
  const { canWrite } = useCurrent();
  return (
    <Page
      title={`Session ${id}`}
      actions={
        <ButtonLink to="/sessions" variant="default" size="xs">
          All sessions
        </ButtonLink>
      }
    >
      <QueryState query={session} what="the session">
        {(s) => (
          <Stack gap="lg">
            {/* A session id in several projects has no one project to share it from. */}
            {canWrite && s.project_id && <ShareButton type="session" id={s.id} projectId={s.project_id} />}
            <Kpis
              items={[
                ['Cost', fmt.usd(s.cost_usd)],
                ['Calls', fmt.int(s.request_count)],
                ['Traces', fmt.int(s.trace_count)],
                ['Tokens', fmt.int(s.total_tokens)],
                ['Duration', fmt.ms(s.duration_ms)],
              ]}
            />
            <Conversation session={s} />
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}

function Conversation({ session }: { session: Session }) {
  const turns: Turn[] = [
    ...session.requests.map((r) => ({ at: r.created_at, kind: 'request' as const, r })),
    ...session.traces.map((t) => ({ at: t.start_time, kind: 'trace' as const, t })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  if (turns.length === 0) return <EmptyView title="Nothing in this session yet" />;
  return (
    <Timeline
      bulletSize={26}
      lineWidth={2}
      className="conversation"
      component="ol"
      aria-label="Conversation"
      p={0}
      m={0}
      style={{ listStyle: 'none' }}
    >
      {turns.map((turn) => (
        <Timeline.Item
          key={turn.kind === 'request' ? turn.r.id : turn.t.id}
          component="li"
          bullet={
            turn.kind === 'request' ? (
              <IconMessage size={14} aria-hidden="true" />
            ) : (
              <IconBinaryTree size={14} aria-hidden="true" />
            )
          }
          title={
            <Text fw={600} size="sm">
              {turn.kind === 'request' ? `Call to ${turn.r.model}` : `Trace ${turn.t.name ?? turn.t.id}`}
            </Text>
          }
        >
          <Text size="xs" c="dimmed">
            {fmt.time(turn.at)}
          </Text>
          {turn.kind === 'request' ? (
            <Group gap="sm" mt={4}>
              <HttpStatus code={turn.r.status_code} />
              <Text size="sm">
                {fmt.usd(turn.r.cost_usd)} · {fmt.int(turn.r.total_tokens)} tokens · {fmt.ms(turn.r.latency_ms)}
              </Text>
              <AppLink to="/requests/$id" params={{ id: turn.r.id }} size="sm">
                Details
              </AppLink>
            </Group>
          ) : (
            <Paper withBorder p="sm" mt={6}>
              <Stack gap="xs">
                <Text size="xs" fw={600}>
                  Input
                </Text>
                <JsonBlock label="Trace input" value={turn.t.input} empty="No input recorded" />
                <Text size="xs" fw={600}>
                  Output
                </Text>
                <JsonBlock label="Trace output" value={turn.t.output} empty="No output recorded" />
                <AppLink to="/traces/$id" params={{ id: turn.t.id }} size="sm">
                  Open the span tree
                </AppLink>
              </Stack>
            </Paper>
          )}
        </Timeline.Item>
      ))}
    </Timeline>
  );
}
