import { Button, Group, Modal, Stack, TagsInput, Text } from '@mantine/core';
import { useState } from 'react';
import { ErrorState } from '../../../components/QueryState';
import { useSetLabels } from '../hooks/usePrompts';

/** Edit one version's labels in a dialog (production, staging, …). */
export function LabelsEditor({
  promptId,
  projectId,
  version,
  labels,
  onClose,
}: {
  promptId: string;
  projectId: string;
  version: number;
  labels: string[];
  onClose: () => void;
}) {
  const [value, setValue] = useState(labels);
  const save = useSetLabels(promptId, projectId);
  return (
    <Modal opened onClose={onClose} title={`Labels of version ${version}`} centered>
      <Stack gap="sm">
        <TagsInput
          label="Labels"
          description="Enter to add. A label moves here from the version that has it."
          value={value}
          onChange={setValue}
        />
        {save.error && <ErrorState error={save.error} title="Could not save the labels" />}
        <Group justify="flex-end" gap="sm">
          <Text size="xs" c="dimmed" mr="auto">
            {value.length} label{value.length === 1 ? '' : 's'}
          </Text>
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            loading={save.isPending}
            onClick={() => save.mutate({ version, labels: value }, { onSuccess: onClose })}
          >
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
