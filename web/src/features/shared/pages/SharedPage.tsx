import { Button, Collapse, Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { getRouteApi } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import type { Schema } from '../../../api/types';
import { JsonBlock } from '../../../components/Json';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { Comparison } from '../../experiments/components/Comparison';
import { formatTotal, SharedStats } from '../components/SharedStats';
import { asComparison, asStats } from '../lib/read';

const route = getRouteApi('/share/$token');

/** The readable rendering of the types the page knows (a comparison, a stats view); null: raw JSON only. */
function readable(s: Schema<'SharedResource'>): ReactNode {
  if (s.resource_type === 'experiment_comparison') {
    const cmp = asComparison(s.resource);
    return cmp && <Comparison cmp={cmp} />;
  }
  if (s.resource_type === 'stats_view') {
    const stats = asStats(s.resource, formatTotal);
    return stats && <SharedStats stats={stats} filter={s.saved_filter} />;
  }
  return null;
}

/** The resource as JSON: the whole answer, a toggle away below a readable rendering. */
function Raw({ value, label, folded }: { value: unknown; label: string; folded: boolean }) {
  const [open, { toggle }] = useDisclosure(!folded);
  if (!folded) return <JsonBlock label={label} value={value} maxHeight="75vh" />;
  return (
    <Stack gap="sm">
      <Group>
        <Button variant="default" size="xs" onClick={toggle} aria-expanded={open} aria-controls="shared-raw">
          {open ? 'Hide the raw JSON' : 'Show the raw JSON'}
        </Button>
      </Group>
      <Collapse expanded={open} id="shared-raw">
        <JsonBlock label={label} value={value} maxHeight="75vh" />
      </Collapse>
    </Stack>
  );
}

/** A share link opened in a browser: the one shared resource, read-only, without signing in. */
export function SharedPage() {
  const { token } = route.useParams();
  const shared = useApiQuery(['share', token], ({ api, signal }) =>
    unwrap(api.GET('/share/{token}', { params: { path: { token } }, headers: { accept: 'application/json' }, signal })),
  );
  const kind = shared.data?.resource_type.replace(/_/g, ' ');
  return (
    <Container size="lg" py="xl" component="main">
      <Stack gap="lg">
        <Group justify="space-between" align="flex-end">
          <div>
            <Text size="sm" c="dimmed" fw={600}>
              LLM Gateway
            </Text>
            <Title order={1} size="h2">
              Shared {kind ?? 'view'}
            </Title>
          </div>
          {shared.data && (
            <Text size="sm" c="dimmed">
              Read-only{shared.data.expires_at ? `, until ${fmt.time(shared.data.expires_at)}` : ''}
            </Text>
          )}
        </Group>
        <QueryState query={shared} what="this link">
          {(s) => {
            const view = readable(s);
            return (
              <Stack gap="lg">
                {view && (
                  <Paper withBorder p="md">
                    {view}
                  </Paper>
                )}
                <Paper withBorder p="md">
                  <Raw value={s.resource} label={`The shared ${kind}`} folded={!!view} />
                </Paper>
              </Stack>
            );
          }}
        </QueryState>
      </Stack>
    </Container>
  );
}
