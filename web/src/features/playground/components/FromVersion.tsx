import { Alert, Button, Group, Text } from '@mantine/core';
import { IconDeviceFloppy, IconGitBranch } from '@tabler/icons-react';
import { useNavigate } from '@tanstack/react-router';
import type { Schema } from '../../../api/types';
import { AppLink } from '../../../components/Links';
import { ErrorState } from '../../../components/QueryState';
import { toast } from '../../../lib/toast';
import { useAddVersion } from '../../prompts/hooks/usePrompts';
import type { Template } from '../../prompts/lib/template';

/**
 * The prompt version the playground started from: unchanged, runs name the version (the calls
 * link to it in the request log); changed, the template can be saved as the prompt's next version.
 */
export function FromVersion({
  version,
  changed,
  template,
  model,
  canWrite,
}: {
  version: Schema<'PromptVersion'>;
  changed: boolean;
  template: Template;
  model: string | undefined;
  canWrite: boolean;
}) {
  const save = useAddVersion(version.prompt_id, version.project_id);
  const navigate = useNavigate();
  const onSave = () =>
    save.mutate(
      {
        template,
        model: model ?? version.model,
        parameters: version.parameters,
        commit_message: `From the playground (based on v${version.version})`,
      },
      {
        onSuccess: (v) => (
          toast(`Saved as version ${v.version}`),
          void navigate({ to: '/prompts/$id', params: { id: v.prompt_id } })
        ),
      },
    );
  return (
    <Alert
      variant="light"
      color="blue"
      icon={<IconGitBranch size={18} aria-hidden />}
      title={
        <>
          From{' '}
          <AppLink to="/prompts/$id" params={{ id: version.prompt_id }}>
            {version.name}
          </AppLink>{' '}
          v{version.version}
        </>
      }
    >
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm" data-testid="seed-state">
          {changed
            ? 'Edited: runs use this template inline.'
            : 'Unchanged: runs name this version, and the calls link to it.'}
        </Text>
        {canWrite && (
          <Button
            size="xs"
            variant="default"
            leftSection={<IconDeviceFloppy size={14} aria-hidden />}
            disabled={!changed}
            loading={save.isPending}
            onClick={onSave}
          >
            Save as new version
          </Button>
        )}
      </Group>
      {save.error && <ErrorState error={save.error} title="Could not save the version" />}
    </Alert>
  );
}
