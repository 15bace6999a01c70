import { Button, Group, Modal, NativeSelect, Stack, Text } from '@mantine/core';
import { IconPencilPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { AppLink } from '../../../components/Links';
import { ErrorState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { toast } from '../../../lib/toast';
import { useAddItems, useCampaigns, type Targets } from '../hooks/useAnnotation';

type Target = { request_id: string } | { trace_id: string };

/**
 * "Add to review" on a call or a trace: queues it in an open campaign of its project, for people
 * to score (the campaign's other items and answers stay as they are).
 */
export function AddToCampaign({ target, projectId, what }: { target: Target; projectId: string; what: string }) {
  const [opened, setOpened] = useState(false);
  const [picked, setPicked] = useState('');
  const campaigns = useCampaigns();
  const add = useAddItems();
  const open = (campaigns.data ?? []).filter((c) => c.project_id === projectId && c.status === 'open');
  const chosen = open.find((c) => c.id === picked) ?? open[0];
  const close = () => (setOpened(false), add.reset());
  const targets: Targets = { items: [target] };
  const submit = () =>
    chosen &&
    add.mutate(
      { id: chosen.id, targets },
      {
        onSuccess: (c) => {
          toast(c.items > chosen.items ? `Added to ${c.name}` : `${c.name} already has this ${what}`);
          close();
        },
      },
    );
  return (
    <>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconPencilPlus size={14} aria-hidden />}
        onClick={() => setOpened(true)}
      >
        Add to review
      </Button>
      <Modal
        opened={opened}
        onClose={close}
        title={`Add this ${what} to a review campaign`}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack gap="sm">
          {open.length ? (
            <>
              <NativeSelect
                label="Campaign"
                value={chosen?.id ?? ''}
                onChange={(e) => setPicked(e.currentTarget.value)}
                data={open.map((c) => ({ value: c.id, label: `${c.name} (${fmt.count(c.items, 'item')})` }))}
              />
              <Text size="sm" c="dimmed">
                It queues after the campaign’s other items, for {fmt.count(chosen?.reviewers_per_item ?? 1, 'reviewer')}
                .
              </Text>
            </>
          ) : (
            <Text size="sm">
              {campaigns.isPending ? (
                'Loading campaigns…'
              ) : (
                <>
                  No open campaign in this project: create one on <AppLink to="/annotation">Annotation</AppLink>.
                </>
              )}
            </Text>
          )}
          {add.error && <ErrorState error={add.error} title="Could not add it" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button onClick={submit} loading={add.isPending} disabled={!chosen}>
              Add to campaign
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
