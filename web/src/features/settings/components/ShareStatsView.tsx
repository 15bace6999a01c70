import { Button, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconShare } from '@tabler/icons-react';
import type { Schema } from '../../../api/types';
import { ShareButton } from '../../../components/ShareButton';

/** A saved filter of the stats view, shared read-only: the link shows its numbers as they are when opened. */
export function ShareStatsView({ saved }: { saved: Schema<'SavedFilter'> }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconShare size={14} aria-hidden="true" />}
        aria-label={`Share ${saved.name}`}
        onClick={open}
      >
        Share
      </Button>
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={close} title={`Share ${saved.name}`}>
        <Stack gap="md">
          <Text size="sm">
            Anyone with the link sees this stats view&apos;s totals (requests, cost, tokens, latency) as they are when
            the link is opened, without signing in. Revoke it under Shares.
          </Text>
          <ShareButton type="stats_view" id={saved.id} projectId={saved.project_id} />
        </Stack>
      </Modal>
    </>
  );
}
