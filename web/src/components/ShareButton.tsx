import { Button, Group, Stack } from '@mantine/core';
import { IconShare } from '@tabler/icons-react';
import { unwrap } from '../api/client';
import { useApiMutation } from '../api/mutation';
import { ErrorState } from './QueryState';
import { SecretOnce } from './SecretOnce';

/** Writers share a trace, request or session read-only; the link is shown once (its token is stored hashed). */
export function ShareButton({
  type,
  id,
  projectId,
}: {
  type: 'trace' | 'request' | 'session';
  id: string;
  projectId: string;
}) {
  const share = useApiMutation(
    (api, redact: boolean) =>
      unwrap(
        api.POST('/api/v1/shares', {
          body: { project_id: projectId, resource_type: type, resource_id: id, redact_bodies: redact },
        }),
      ),
    { invalidates: ['shares'] },
  );
  return (
    <Stack gap="sm">
      <Group gap="sm">
        <Button
          variant="default"
          size="xs"
          leftSection={<IconShare size={14} aria-hidden="true" />}
          loading={share.isPending && share.variables === false}
          onClick={() => share.mutate(false)}
        >
          Share
        </Button>
        <Button
          variant="default"
          size="xs"
          loading={share.isPending && share.variables === true}
          onClick={() => share.mutate(true)}
        >
          Share without bodies
        </Button>
      </Group>
      {share.data && (
        <SecretOnce title="Read-only link" value={share.data.url} testId="share-url" onDone={share.reset} />
      )}
      {share.error && <ErrorState error={share.error} title="Could not create the link" />}
    </Stack>
  );
}
