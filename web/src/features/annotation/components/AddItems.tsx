import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { FormEvent } from 'react';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { toast } from '../../../lib/toast';
import { useAddItems } from '../hooks/useAnnotation';
import { describeTargets, TARGET_DEFAULTS, toTargets, validateTargets, type TargetValues } from '../lib/targets';
import { TargetFields } from './TargetFields';

/** More items for a campaign; the answer says how many were new (ones it has keep their answers). */
export function AddItems({ campaign, onClose }: { campaign: Schema<'HumanEval'>; onClose: () => void }) {
  const add = useAddItems();
  const form = useForm<TargetValues>({ initialValues: TARGET_DEFAULTS, validate: validateTargets });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form.validate().hasErrors) return;
    add.mutate(
      { id: campaign.id, targets: toTargets(form.values) },
      {
        onSuccess: (c) => {
          const added = c.items - campaign.items;
          toast(added ? `${fmt.count(added, 'item')} added to ${c.name}` : `${c.name} already had every one of them`);
          onClose();
        },
      },
    );
  };
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Add items to “${campaign.name}”`}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} aria-label="Add items">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            It has {fmt.count(campaign.items, 'item')}. New ones queue after them; ones it has keep their answers.
          </Text>
          <TargetFields form={form} idPrefix="add" />
          {add.error && <ErrorState error={add.error} title="Could not add the items" />}
          <Group justify="flex-end" gap="sm">
            <Text size="xs" c="dimmed" mr="auto">
              {describeTargets(form.values)}
            </Text>
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending}>
              Add items
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
