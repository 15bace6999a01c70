import {
  Button,
  Checkbox,
  Divider,
  Group,
  Modal,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import type { FormEvent } from 'react';
import { ErrorState } from '../../../components/QueryState';
import { AppLink } from '../../../components/Links';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import { useCreateCampaign, useScoreConfigs } from '../hooks/useAnnotation';
import { describeTargets, TARGET_DEFAULTS, toTargets, validateTargets, type TargetValues } from '../lib/targets';
import { TargetFields } from './TargetFields';

interface Values {
  project_id: string;
  name: string;
  instructions: string;
  score_config_ids: string[];
  reviewers_per_item: string;
  reviewers: string;
}
const EMPTY: Values = {
  project_id: '',
  name: '',
  instructions: '',
  score_config_ids: [],
  reviewers_per_item: '1',
  reviewers: '',
};
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const emails = (s: string) => [
  ...new Set(
    s
      .split(/[\s,;]+/)
      .filter(Boolean)
      .map((e) => e.toLowerCase()),
  ),
];
const perItem = (v: string) => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 10 ? null : 'From 1 to 10';
};

/** A new review campaign: what reviewers fill (score configs), who reviews, how many per item, and the items. */
export function CampaignForm({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) {
  const projects = useProjects();
  const { projectId } = useSession();
  const create = useCreateCampaign();
  const form = useForm<Values>({
    initialValues: EMPTY,
    validate: {
      name: (v) => (v.trim() ? null : 'Name the campaign'),
      score_config_ids: (v) => (v.length ? null : 'Choose what reviewers score'),
      reviewers_per_item: perItem,
      reviewers: (v) => {
        const bad = emails(v).find((e) => !EMAIL.test(e));
        return bad ? `Not an e-mail: ${bad}` : null;
      },
    },
  });
  const targets = useForm<TargetValues>({ initialValues: TARGET_DEFAULTS, validate: validateTargets });
  const project = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const configs = useScoreConfigs(project);
  const usable = (configs.data ?? []).filter((c) => !c.is_archived);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Both parts show their errors at once, not the targets' only after the rest is fixed.
    if ([form.validate(), targets.validate()].some((r) => r.hasErrors)) return;
    const v = form.values;
    const instructions = v.instructions.trim();
    create.mutate(
      {
        project_id: project,
        name: v.name.trim(),
        score_config_ids: v.score_config_ids,
        reviewers_per_item: Number(v.reviewers_per_item),
        reviewers: emails(v.reviewers).map((email) => ({ email })),
        targets: toTargets(targets.values),
        ...(instructions ? { instructions } : {}),
      },
      { onSuccess: (c) => (onClose(), onCreated(c.id)) },
    );
  };
  const pickProject = (id: string) => {
    form.setFieldValue('project_id', id);
    form.setFieldValue('score_config_ids', []); // score configs belong to a project
  };
  const noConfigs = configs.isPending ? (
    'Loading score configs…'
  ) : (
    <>
      No score configs in this project yet: create one under{' '}
      <AppLink to="/evaluators" size="sm">
        Evaluators → Score configs
      </AppLink>
      .
    </>
  );
  return (
    <Modal opened onClose={onClose} title="New review campaign" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} aria-label="New review campaign">
        <Stack gap="sm">
          <TextInput
            label="Name"
            placeholder="e.g. weekly support answers"
            data-autofocus
            {...form.getInputProps('name')}
          />
          {!projectId && (
            <NativeSelect
              label="Project"
              value={project}
              onChange={(e) => pickProject(e.currentTarget.value)}
              data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
            />
          )}
          <Textarea
            label="Instructions"
            placeholder="What makes an answer good? Shown above every item."
            autosize
            minRows={2}
            {...form.getInputProps('instructions')}
          />
          <Checkbox.Group
            label="What reviewers score"
            {...form.getInputProps('score_config_ids')}
            description={usable.length ? 'The first one is scored with the number keys.' : undefined}
          >
            {usable.length ? (
              <SimpleGrid cols={{ base: 1, sm: 2 }} mt={6} spacing={6}>
                {usable.map((c) => (
                  <Checkbox key={c.id} value={c.id} label={`${c.name} (${c.data_type})`} />
                ))}
              </SimpleGrid>
            ) : (
              <Text size="sm" c="dimmed" mt={4}>
                {noConfigs}
              </Text>
            )}
          </Checkbox.Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label="Reviewers per item"
              description="each item waits for this many answers (1–10)"
              type="number"
              min={1}
              max={10}
              {...form.getInputProps('reviewers_per_item')}
            />
            <TextInput
              label="Reviewers"
              placeholder="everyone in the organization"
              description="e-mails of members, separated by commas"
              {...form.getInputProps('reviewers')}
            />
          </SimpleGrid>
          <Divider />
          <TargetFields form={targets} idPrefix="campaign" />
          {create.error && <ErrorState error={create.error} title="Could not create the campaign" />}
          <Group justify="flex-end" gap="sm">
            <Text size="xs" c="dimmed" mr="auto">
              {describeTargets(targets.values)}
            </Text>
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!project}>
              Create campaign
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
