import { Button, Code, Group, Stack, Text } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { Facts } from '../../../components/Facts';
import { AppLink } from '../../../components/Links';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { useFinding, useSetFindingStatus, type FindingStatus } from '../hooks/useFindings';
import { place } from '../lib';

type Finding = Schema<'SecurityFinding'>;
type Sighting = Finding['first'] & { when: string; label: string };

/** Where a sighting was: the request and the trace (with its span), linked. */
function Seen({ s }: { s: Sighting }) {
  if (!s.request_id && !s.trace_id)
    return (
      <Text size="sm" c="dimmed">
        not recorded
      </Text>
    );
  return (
    <Group gap="xs">
      {s.request_id && (
        <AppLink to="/requests/$id" params={{ id: s.request_id }} size="sm">
          request {s.request_id.slice(0, 8)}
        </AppLink>
      )}
      {s.trace_id && (
        <AppLink to="/traces/$id" params={{ id: s.trace_id }} size="sm">
          trace {s.trace_id.slice(0, 8)}
          {s.span_id ? `, span ${s.span_id.slice(0, 8)}` : ''}
        </AppLink>
      )}
    </Group>
  );
}

/** One finding: the masked excerpt, where it was first and last seen, and resolve, dismiss or reopen (writers). */
export function FindingDetail({ id }: { id: string }) {
  const one = useFinding(id);
  const { canWrite } = useCurrent();
  const set = useSetFindingStatus();
  const button = (f: Finding, status: FindingStatus, label: string, variant: 'filled' | 'default') => (
    <Button
      size="sm"
      variant={variant}
      loading={set.isPending && set.variables?.status === status}
      onClick={() => set.mutate({ id: f.id, status })}
    >
      {label}
    </Button>
  );
  return (
    <QueryState query={one} what="the finding">
      {(f) => {
        const sightings: Sighting[] = [
          { ...f.first, when: f.first_seen, label: 'First' },
          { ...f.last, when: f.last_seen, label: 'Last' },
        ];
        return (
          <Stack gap="md">
            <Group gap="xs">
              <StatusBadge value={f.severity} />
              <StatusBadge value={f.status} />
              <Text size="sm" fw={500}>
                {f.kind.replace(/_/g, ' ')}: {f.category}
              </Text>
            </Group>
            {canWrite && (
              <Group gap="sm">
                {f.status === 'open' ? (
                  <>
                    {button(f, 'resolved', 'Resolve', 'filled')}
                    {button(f, 'dismissed', 'Dismiss', 'default')}
                  </>
                ) : (
                  button(f, 'open', 'Reopen', 'default')
                )}
              </Group>
            )}
            {set.error && <ErrorState error={set.error} title="Could not change the finding" />}
            <Stack gap={4}>
              <Text fw={600} size="sm" component="h3" m={0}>
                Masked excerpt
              </Text>
              <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {f.excerpt}
              </Code>
            </Stack>
            <Facts
              items={[
                ['Where', `${place(f)} (${f.direction === 'in' ? 'sent to the model' : 'returned by the model'})`],
                ['Detector', f.detector],
                ['Occurrences', `${fmt.int(f.occurrences)}×`],
                [
                  'Status changed',
                  f.status_changed_at
                    ? `${fmt.time(f.status_changed_at)}${f.status_changed_by ? ` by ${f.status_changed_by}` : ''}`
                    : '—',
                ],
              ]}
            />
            <Stack gap={4}>
              <Text fw={600} size="sm" component="h3" m={0}>
                Sightings
              </Text>
              <Facts
                items={sightings.map((x) => [
                  `${x.label} seen`,
                  <Stack key={x.label} gap={2}>
                    <span>{fmt.time(x.when)}</span>
                    <Seen s={x} />
                  </Stack>,
                ])}
              />
            </Stack>
          </Stack>
        );
      }}
    </QueryState>
  );
}
