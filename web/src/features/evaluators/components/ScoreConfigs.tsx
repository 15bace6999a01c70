import { Badge, Button, Group, Modal, NativeSelect, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { useSession } from '../../../session/context';
import {
  useAllScoreConfigs,
  useCreateScoreConfig,
  useUpdateScoreConfig,
  type ScoreConfigBody,
} from '../hooks/useEvaluators';

type Config = Schema<'ScoreConfig'>;
type DataType = ScoreConfigBody['data_type'];
const DATA_TYPES = ['numeric', 'categorical', 'boolean'] as const satisfies readonly DataType[];

interface Values {
  name: string;
  description: string;
  data_type: DataType;
  min: string;
  max: string;
  categories: string;
}

/** `good=1, bad=0` ⇄ [{label, value}]. */
const parseCategories = (s: string) =>
  s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const [label = '', value = ''] = p.split('=').map((x) => x.trim());
      return { label, value: Number(value) };
    });
const showCategories = (c: Config['categories']) => (c ?? []).map((x) => `${x.label}=${x.value}`).join(', ');
const optNum = (s: string) => (s.trim() === '' ? null : Number(s));

function describe(c: Config) {
  if (c.data_type === 'numeric') return `${c.min ?? '−∞'} to ${c.max ?? '∞'}`;
  if (c.data_type === 'categorical') return showCategories(c.categories);
  return 'true / false';
}

/**
 * How human and machine scores are shaped: numeric ranges, categories, booleans. Archived configs take no new scores.
 */
export function ScoreConfigs() {
  const { canWrite } = useCurrent();
  const list = useAllScoreConfigs();
  const update = useUpdateScoreConfig();
  const [editing, setEditing] = useState<Config | 'new' | null>(null);
  return (
    <Section
      title="Score configs"
      actions={
        canWrite && (
          <Button size="xs" onClick={() => setEditing('new')}>
            New score config
          </Button>
        )
      }
    >
      <QueryState
        query={list}
        what="score configs"
        empty={{
          title: 'No score configs yet',
          description: canWrite
            ? 'Create one to give scores a range or categories; ' +
              'annotation campaigns and evaluators check scores against it.'
            : 'An editor or admin creates them.',
        }}
      >
        {(rows) => (
          <DataTable
            caption="Score configs"
            rows={rows}
            rowKey={(c) => c.id}
            minWidth={640}
            columns={[
              {
                key: 'n',
                label: 'Name',
                render: (c) => (
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" fw={500}>
                      {c.name}
                    </Text>
                    {c.is_archived && (
                      <Badge size="xs" color="gray" variant="light" radius="sm" tt="none">
                        archived
                      </Badge>
                    )}
                  </Group>
                ),
              },
              { key: 't', label: 'Type', render: (c) => c.data_type },
              { key: 'v', label: 'Values', render: (c) => describe(c) },
              {
                key: 'a',
                label: 'Actions',
                render: (c) =>
                  canWrite && (
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="default" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>
                        Edit
                      </Button>
                      {c.is_archived ? (
                        <Button
                          size="xs"
                          variant="subtle"
                          onClick={() => update.mutate({ id: c.id, body: { is_archived: false } })}
                          aria-label={`Restore ${c.name}`}
                        >
                          Restore
                        </Button>
                      ) : (
                        <ConfirmButton
                          title={`Archive ${c.name}?`}
                          message="It takes no new scores and frees its name; existing scores keep it."
                          confirm="Archive"
                          aria-label={`Archive ${c.name}`}
                          onConfirm={() => update.mutate({ id: c.id, body: { is_archived: true } })}
                        >
                          Archive
                        </ConfirmButton>
                      )}
                    </Group>
                  ),
              },
            ]}
          />
        )}
      </QueryState>
      {update.error && <ErrorState error={update.error} title="Could not change the score config" />}
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'New score config' : editing ? `Edit ${editing.name}` : ''}
      >
        {editing !== null && <ConfigForm config={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
      </Modal>
    </Section>
  );
}

function ConfigForm({ config, onDone }: { config: Config | null; onDone: () => void }) {
  const { projectId } = useSession();
  const create = useCreateScoreConfig();
  const update = useUpdateScoreConfig();
  const form = useForm<Values>({
    initialValues: config
      ? {
          name: config.name,
          description: config.description ?? '',
          data_type: DATA_TYPES.find((t) => t === config.data_type) ?? 'numeric',
          min: config.min === null ? '' : String(config.min),
          max: config.max === null ? '' : String(config.max),
          categories: showCategories(config.categories),
        }
      : { name: '', description: '', data_type: 'numeric', min: '0', max: '1', categories: 'good=1, bad=0' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name it'),
      max: (v, all) =>
        all.data_type === 'numeric' && v.trim() !== '' && all.min.trim() !== '' && Number(v) <= Number(all.min)
          ? 'Above the lowest value'
          : null,
      categories: (v, all) =>
        all.data_type === 'categorical' &&
        (parseCategories(v).length === 0 || parseCategories(v).some((c) => !c.label || Number.isNaN(c.value)))
          ? 'Label=value pairs, comma-separated (good=1, bad=0)'
          : null,
    },
  });
  const v = form.values;
  const submit = form.onSubmit((x) => {
    const shape =
      x.data_type === 'numeric'
        ? { min: optNum(x.min), max: optNum(x.max) }
        : x.data_type === 'categorical'
          ? { categories: parseCategories(x.categories) }
          : {};
    const common = { name: x.name.trim(), description: x.description.trim() || null, ...shape };
    if (config) update.mutate({ id: config.id, body: common }, { onSuccess: onDone });
    else
      create.mutate(
        { ...common, data_type: x.data_type, ...(projectId ? { project_id: projectId } : {}) },
        { onSuccess: onDone },
      );
  });
  const error = create.error ?? update.error;
  return (
    <form onSubmit={submit} aria-label="Score config">
      <Stack gap="sm">
        <TextInput label="Name" data-autofocus {...form.getInputProps('name')} />
        <NativeSelect label="Type" disabled={!!config} data={[...DATA_TYPES]} {...form.getInputProps('data_type')} />
        {v.data_type === 'numeric' && (
          <Group grow>
            <TextInput label="Lowest value" type="number" step="any" {...form.getInputProps('min')} />
            <TextInput label="Highest value" type="number" step="any" {...form.getInputProps('max')} />
          </Group>
        )}
        {v.data_type === 'categorical' && (
          <TextInput
            label="Categories"
            description="label=value, comma-separated"
            {...form.getInputProps('categories')}
          />
        )}
        <Textarea label="Description (optional)" autosize minRows={1} {...form.getInputProps('description')} />
        {error && <ErrorState error={error} title="Could not save the score config" />}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {config ? 'Save' : 'Create score config'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
