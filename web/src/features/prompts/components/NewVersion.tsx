import { Button, Group, Modal, SimpleGrid, Stack, TagsInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { toast } from '../../../lib/toast';
import { useAddVersion } from '../hooks/usePrompts';
import { editable, templateError, type Template } from '../lib/template';
import { TemplateEditor } from './TemplateEditor';

interface Values {
  template: Template;
  model: string;
  commit_message: string;
  labels: string[];
}
const LABEL = /^[a-z][a-z0-9_-]*$/;

/**
 * The next version of a prompt, starting from `base` (the latest): template, model, message and the labels it takes.
 */
export function NewVersion({
  promptId,
  projectId,
  base,
  onClose,
}: {
  promptId: string;
  projectId: string;
  base: Schema<'PromptVersion'> | undefined;
  onClose: () => void;
}) {
  const add = useAddVersion(promptId, projectId);
  const form = useForm<Values>({
    initialValues: {
      template: base ? editable(base.template) : '',
      model: base?.model ?? '',
      commit_message: '',
      labels: [],
    },
    validate: {
      template: templateError,
      labels: (v) =>
        v.every((l) => LABEL.test(l) && l !== 'latest')
          ? null
          : 'Labels: lower-case letters, digits, _ and -, starting with a letter; not latest',
    },
  });
  const submit = form.onSubmit((v) => {
    add.mutate(
      {
        template: v.template,
        model: v.model.trim() || null,
        ...(v.commit_message.trim() ? { commit_message: v.commit_message.trim() } : {}),
        ...(v.labels.length ? { labels: v.labels } : {}),
      },
      { onSuccess: (r) => (toast(`Version ${r.version} saved`), onClose()) },
    );
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={base ? `New version (from v${base.version})` : 'First version'}
      size="xl"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} aria-label="New version">
        <Stack gap="sm">
          <TemplateEditor
            value={form.values.template}
            onChange={(t) => form.setFieldValue('template', t)}
            error={typeof form.errors.template === 'string' ? form.errors.template : null}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label="Model"
              placeholder="gpt-4o-mini"
              description="The model calls of this version default to"
              {...form.getInputProps('model')}
            />
            <TagsInput
              label="Labels"
              description="Enter to add; a label moves here from the version holding it"
              {...form.getInputProps('labels')}
            />
          </SimpleGrid>
          <TextInput
            label="Commit message"
            placeholder="What changed, and why"
            {...form.getInputProps('commit_message')}
          />
          {add.error && <ErrorState error={add.error} title="Could not save the version" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending}>
              Save version
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
