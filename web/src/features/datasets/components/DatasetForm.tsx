import { Button, Group, Modal, NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import { useCreateDataset, useUpdateDataset } from '../hooks/useDatasets';

interface Values {
  project_id: string;
  name: string;
  description: string;
}

/** A new dataset (its page opens once saved) or, with `dataset`, its name and description. */
export function DatasetForm({ dataset, onClose }: { dataset?: Schema<'Dataset'>; onClose: () => void }) {
  const projects = useProjects();
  const { projectId } = useSession();
  const create = useCreateDataset();
  const update = useUpdateDataset(dataset?.id ?? '', dataset?.project_id ?? '');
  const write = dataset ? update : create;
  const navigate = useNavigate();
  const form = useForm<Values>({
    initialValues: { project_id: '', name: dataset?.name ?? '', description: dataset?.description ?? '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the dataset') },
  });
  const project = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const submit = form.onSubmit((v) => {
    const description = v.description.trim() || null;
    if (dataset) update.mutate({ name: v.name.trim(), description }, { onSuccess: onClose });
    else
      create.mutate(
        { project_id: project, name: v.name.trim(), ...(description ? { description } : {}) },
        { onSuccess: (d) => (onClose(), void navigate({ to: '/datasets/$id', params: { id: d.id } })) },
      );
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={dataset ? `Edit “${dataset.name}”` : 'New dataset'}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} aria-label={dataset ? 'Edit the dataset' : 'New dataset'}>
        <Stack gap="sm">
          <TextInput label="Name" placeholder="golden answers" data-autofocus {...form.getInputProps('name')} />
          {!dataset && (
            <NativeSelect
              label="Project"
              value={project}
              onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)}
              data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
            />
          )}
          <Textarea
            label="Description"
            placeholder="optional"
            autosize
            minRows={2}
            {...form.getInputProps('description')}
          />
          {write.error && <ErrorState error={write.error} title="Could not save the dataset" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={write.isPending} disabled={!dataset && !project}>
              {dataset ? 'Save' : 'Create dataset'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
