import { Button, Group, Modal, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { toast } from '../../../lib/toast';
import { useUpsertItems } from '../hooks/useDatasets';
import { fromField, jsonError, splitError, toField } from '../lib/values';

interface Values {
  id: string;
  input: string;
  expected_output: string;
  split: string;
}
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const mono = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

/** Adds an item, or (with `item`) edits one: the same id written again is a new version of it. */
export function ItemForm({
  datasetId,
  projectId,
  item,
  onClose,
}: {
  datasetId: string;
  projectId: string;
  item?: Schema<'DatasetItem'>;
  onClose: () => void;
}) {
  const write = useUpsertItems(datasetId, projectId);
  const form = useForm<Values>({
    initialValues: {
      id: item?.id ?? '',
      input: toField(item?.input),
      expected_output: toField(item?.expected_output),
      split: item?.split ?? '',
    },
    validate: {
      id: (v) => (!v.trim() || ID.test(v.trim()) ? null : 'Letters, digits, . _ : - (max 128)'),
      input: (v) => (v.trim() ? jsonError(v) : 'The input is required'),
      expected_output: jsonError,
      split: splitError,
    },
  });
  const submit = form.onSubmit((v) => {
    const body = {
      ...(v.id.trim() ? { id: v.id.trim() } : {}),
      input: fromField(v.input),
      expected_output: v.expected_output.trim() ? fromField(v.expected_output) : null,
      split: v.split.trim() || null,
      ...(item ? { metadata: item.metadata } : {}),
    };
    write.mutate([body], {
      onSuccess: (r) => (toast(r.added ? 'Item added' : r.updated ? 'Item saved' : 'Nothing changed'), onClose()),
    });
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={item ? `Edit item ${item.id}` : 'Add an item'}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} aria-label={item ? 'Edit the item' : 'Add an item'}>
        <Stack gap="sm">
          <Textarea
            label="Input"
            description="Text, or JSON (an object, a list of messages…)"
            autosize
            minRows={3}
            maxRows={14}
            styles={mono}
            data-autofocus
            {...form.getInputProps('input')}
          />
          <Textarea
            label="Expected output"
            description="Optional; text or JSON"
            autosize
            minRows={2}
            maxRows={10}
            styles={mono}
            {...form.getInputProps('expected_output')}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label="Id"
              description={item ? 'An item keeps its id' : 'Optional: a new id is made when empty'}
              disabled={Boolean(item)}
              {...form.getInputProps('id')}
            />
            <TextInput
              label="Split"
              placeholder="test"
              description="Optional (train, test, …)"
              {...form.getInputProps('split')}
            />
          </SimpleGrid>
          {write.error && <ErrorState error={write.error} title="Could not save the item" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={write.isPending}>
              {item ? 'Save item' : 'Add item'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
