import { Button, Group, Modal, NativeSelect, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconDatabasePlus, IconStar } from '@tabler/icons-react';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { toConversation, outputText, parseBody } from '../../../components/conversation/parse';
import { JsonBlock } from '../../../components/Json';
import { AppLink } from '../../../components/Links';
import { ErrorState } from '../../../components/QueryState';
import { toast } from '../../../lib/toast';
import { useDatasets } from '../../datasets/hooks/useDatasets';
import { useAddScore, useAddToDataset, type ItemBody, type ScoreBody } from '../hooks/useRequests';

type Request = Schema<'RequestDetail'>;
type DataType = NonNullable<ScoreBody['data_type']>;
const TYPES: { value: DataType; label: string }[] = [
  { value: 'numeric', label: 'Number' },
  { value: 'boolean', label: 'Yes / no' },
  { value: 'categorical', label: 'Category' },
];
const close = { closeButtonProps: { 'aria-label': 'Close' } } as const;

/** "Add score" and "Add to dataset" for one request, each in its own dialog. */
export function RequestActions({ request }: { request: Request }) {
  const [open, setOpen] = useState<'score' | 'dataset' | null>(null);
  return (
    <Group gap="sm">
      <Button
        size="xs"
        variant="default"
        leftSection={<IconStar size={14} aria-hidden />}
        onClick={() => setOpen('score')}
      >
        Add score
      </Button>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconDatabasePlus size={14} aria-hidden />}
        onClick={() => setOpen('dataset')}
      >
        Add to dataset
      </Button>
      <Modal {...close} opened={open === 'score'} onClose={() => setOpen(null)} title="Add a score to this request">
        {open === 'score' && <ScoreForm request={request} onDone={() => setOpen(null)} />}
      </Modal>
      <Modal
        {...close}
        opened={open === 'dataset'}
        onClose={() => setOpen(null)}
        title="Add this request to a dataset"
        size="lg"
      >
        {open === 'dataset' && <DatasetForm request={request} onDone={() => setOpen(null)} />}
      </Modal>
    </Group>
  );
}

interface ScoreValues {
  name: string;
  data_type: DataType;
  value: string;
  comment: string;
}

function ScoreForm({ request, onDone }: { request: Request; onDone: () => void }) {
  const add = useAddScore();
  const form = useForm<ScoreValues>({
    initialValues: { name: '', data_type: 'numeric', value: '', comment: '' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the score (e.g. helpfulness)'),
      value: (v, all) =>
        all.data_type === 'numeric'
          ? v.trim() !== '' && Number.isFinite(Number(v))
            ? null
            : 'A number'
          : all.data_type === 'categorical' && !v.trim()
            ? 'A category label'
            : null,
    },
  });
  const t = form.values.data_type;
  const submit = form.onSubmit((x) => {
    const value =
      x.data_type === 'numeric'
        ? { value: Number(x.value) }
        : { string_value: x.data_type === 'boolean' ? (x.value === 'false' ? 'false' : 'true') : x.value.trim() };
    add.mutate(
      {
        request_id: request.id,
        project_id: request.project_id,
        name: x.name.trim(),
        data_type: x.data_type,
        ...value,
        ...(x.comment.trim() ? { comment: x.comment.trim() } : {}),
      },
      { onSuccess: onDone },
    );
  });
  return (
    <form onSubmit={submit} aria-label="Add a score">
      <Stack gap="sm">
        <TextInput label="Name" placeholder="helpfulness" data-autofocus {...form.getInputProps('name')} />
        <NativeSelect
          label="Type"
          data={TYPES}
          {...form.getInputProps('data_type')}
          onChange={(e) => (
            form.setFieldValue('data_type', e.currentTarget.value as DataType),
            form.setFieldValue('value', e.currentTarget.value === 'boolean' ? 'true' : '')
          )}
        />
        {t === 'boolean' ? (
          <NativeSelect
            label="Value"
            data={[
              { value: 'true', label: 'yes' },
              { value: 'false', label: 'no' },
            ]}
            {...form.getInputProps('value')}
          />
        ) : (
          <TextInput
            label="Value"
            placeholder={t === 'numeric' ? '0.8' : 'correct'}
            inputMode={t === 'numeric' ? 'decimal' : undefined}
            {...form.getInputProps('value')}
          />
        )}
        <Textarea label="Comment" placeholder="optional" autosize minRows={2} {...form.getInputProps('comment')} />
        {add.error && <ErrorState error={add.error} title="Could not add the score" />}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={add.isPending}>
            Add score
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * A request as a dataset item, like "add from production": the chat input, the answer's text as the expected output.
 */
export function requestItem(r: Request): ItemBody {
  const req = parseBody(r.request_body);
  const conversation = toConversation(r.request_body, r.response_body, r.provider);
  const input =
    typeof req === 'object' && req !== null && 'messages' in req
      ? { messages: (req as { messages: unknown }).messages }
      : (req ?? null);
  return {
    id: `request:${r.id}`,
    input,
    expected_output: outputText(conversation) ?? parseBody(r.response_body) ?? null,
    metadata: { model: r.model, provider: r.provider, ...(r.properties ?? {}) },
    source_request_id: r.id,
  };
}

function DatasetForm({ request, onDone }: { request: Request; onDone: () => void }) {
  const datasets = useDatasets();
  const add = useAddToDataset();
  const options = (datasets.data ?? []).filter((d) => d.project_id === request.project_id);
  const [datasetId, setDatasetId] = useState('');
  const chosen = datasetId || options[0]?.id || '';
  const item = requestItem(request);
  if (!request.request_body)
    return (
      <Text size="sm">This call's bodies were not logged (log mode {request.log_mode}): there is no input to add.</Text>
    );
  if (datasets.data && !options.length) {
    return (
      <Text size="sm">
        This project has no dataset yet. <AppLink to="/datasets">Create one on Datasets</AppLink>, then come back.
      </Text>
    );
  }
  const submit = () =>
    add.mutate(
      { datasetId: chosen, projectId: request.project_id, item },
      {
        onSuccess: (r) => {
          const name = options.find((d) => d.id === chosen)?.name ?? 'the dataset';
          toast(
            r.added ? `Added to ${name}` : r.updated ? `Updated its item in ${name}` : `Already in ${name}, unchanged`,
          );
          onDone();
        },
      },
    );
  return (
    <Stack gap="sm">
      <NativeSelect
        label="Dataset"
        data={options.map((d) => ({ value: d.id, label: `${d.name} (${d.items} items)` }))}
        value={chosen}
        onChange={(e) => setDatasetId(e.currentTarget.value)}
        disabled={!options.length}
      />
      <Text size="sm" c="dimmed">
        The item's id names this request (<code>{item.id}</code>): adding it again updates the same item.
      </Text>
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          Input
        </Text>
        <JsonBlock label="Item input" value={item.input} maxHeight={180} />
      </Stack>
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          Expected output
        </Text>
        <JsonBlock
          label="Item expected output"
          value={item.expected_output}
          maxHeight={140}
          empty="None (the response was not logged)"
        />
      </Stack>
      {add.error && <ErrorState error={add.error} title="Could not add the item" />}
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button onClick={submit} loading={add.isPending} disabled={!chosen}>
          Add to dataset
        </Button>
      </Group>
    </Stack>
  );
}
