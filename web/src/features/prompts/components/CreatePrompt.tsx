import { Button, Group, Modal, NativeSelect, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from '@tanstack/react-router';
import { ErrorState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import { useCreatePrompt } from '../hooks/usePrompts';
import { templateError, type Template } from '../lib/template';
import { TemplateEditor } from './TemplateEditor';

interface Values {
  project_id: string;
  name: string;
  description: string;
  template: Template;
  model: string;
}
const NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

/** A new prompt with its first version; the prompt's page opens once it is saved. */
export function CreatePrompt({ onClose }: { onClose: () => void }) {
  const projects = useProjects();
  const { projectId } = useSession();
  const create = useCreatePrompt();
  const navigate = useNavigate();
  const form = useForm<Values>({
    initialValues: { project_id: '', name: '', description: '', template: '', model: 'gpt-4o-mini' },
    validate: {
      name: (v) => (NAME.test(v.trim()) ? null : 'Letters, digits, . _ - / (max 128), starting with a letter or digit'),
      template: templateError,
    },
  });
  const project = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const submit = form.onSubmit((v) => {
    create.mutate(
      {
        project_id: project,
        name: v.name.trim(),
        ...(v.description.trim() ? { description: v.description.trim() } : {}),
        version: { template: v.template, model: v.model.trim() || null, commit_message: 'First version' },
      },
      { onSuccess: (p) => (onClose(), void navigate({ to: '/prompts/$id', params: { id: p.id } })) },
    );
  });
  return (
    <Modal opened onClose={onClose} title="New prompt" size="xl" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} aria-label="New prompt">
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="Name" placeholder="support/greeter" data-autofocus {...form.getInputProps('name')} />
            <NativeSelect
              label="Project"
              value={project}
              onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)}
              data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
            />
          </SimpleGrid>
          <Textarea
            label="Description"
            placeholder="optional"
            autosize
            minRows={1}
            {...form.getInputProps('description')}
          />
          <TemplateEditor
            value={form.values.template}
            onChange={(t) => form.setFieldValue('template', t)}
            error={typeof form.errors.template === 'string' ? form.errors.template : null}
          />
          <TextInput label="Model" placeholder="gpt-4o-mini" {...form.getInputProps('model')} />
          {create.error && <ErrorState error={create.error} title="Could not create the prompt" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!project}>
              Create prompt
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
