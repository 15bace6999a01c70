import { Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import { JsonBlock } from '../../../components/Json';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';

const route = getRouteApi('/share/$token');

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
          {(s) => (
            <Paper withBorder p="md">
              <JsonBlock label={`The shared ${kind}`} value={s.resource} maxHeight="75vh" />
            </Paper>
          )}
        </QueryState>
      </Stack>
    </Container>
  );
}
