import { Button, Group, Stack } from '@mantine/core';
import { IconShare } from '@tabler/icons-react';
import { unwrap } from '../api/client';
import { useApiMutation } from '../api/mutation';
import type { Schema } from '../api/types';
import { ErrorState } from './QueryState';
import { SecretOnce } from './SecretOnce';

export type ShareType = Schema<'Share'>['resource_type'];
// What "without bodies" leaves out of each kind (docs/shares.md); a stats view has nothing to redact.
const REDACTS: Record<ShareType, string | null> = {
  trace: 'bodies',
  request: 'bodies',
  session: 'bodies',
  experiment_comparison: 'outputs',
  stats_view: null,
};

/**
 * Writers share a trace, request, session, experiment comparison (`a,b[,…]`, the first the baseline) or stats
 * view (a saved filter of the stats view) read-only; the link is shown once (its token is stored hashed).
 */
export function ShareButton({ type, id, projectId }: { type: ShareType; id: string; projectId: string }) {
  const share = useApiMutation(
    (api, redact: boolean) =>
      unwrap(
        api.POST('/api/v1/shares', {
          body: { project_id: projectId, resource_type: type, resource_id: id, redact_bodies: redact },
        }),
      ),
    { invalidates: ['shares'] },
  );
  const redacts = REDACTS[type];
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
        {redacts && (
          <Button
            variant="default"
            size="xs"
            loading={share.isPending && share.variables === true}
            onClick={() => share.mutate(true)}
          >
            Share without {redacts}
          </Button>
        )}
      </Group>
      {share.data && (
        <SecretOnce title="Read-only link" value={share.data.url} testId="share-url" onDone={share.reset} />
      )}
      {share.error && <ErrorState error={share.error} title="Could not create the link" />}
    </Stack>
  );
}
