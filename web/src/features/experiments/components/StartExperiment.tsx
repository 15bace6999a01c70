import {
  Button,
  Checkbox,
  Group,
  Input,
  Modal,
  NativeSelect,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { PROVIDERS } from '../../../api/enums';
import { ErrorState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useSession } from '../../../session/context';
import { useDatasets, useDatasetVersions } from '../../datasets/hooks/useDatasets';
import { useEvaluators } from '../../evaluators/hooks/useEvaluators';
import { usePromptList } from '../../prompts/hooks/usePrompts';
import { useStartExperiment, type ExperimentBody } from '../hooks/useExperiments';

// Gemini is not offered for experiments yet (the API refuses it).
const EXPERIMENT_PROVIDERS = PROVIDERS.filter((p) => p !== 'gemini');
type ExperimentProvider = Extract<ExperimentBody['subject'], { kind: 'prompt' }>['provider'];
const isProvider = (p: string): p is ExperimentProvider => EXPERIMENT_PROVIDERS.some((x) => x === p);

interface Values {
  name: string;
  dataset_id: string;
  version: string;
  split: string;
  kind: 'prompt' | 'model';
  prompt: string;
  prompt_version: string;
  template: string;
  provider: string;
  model: string;
  evaluator_ids: string[];
  repetitions: string;
}

/**
 * Start an experiment: a dataset at a version, run through a stored prompt version or a model with an inline template,
 * scored by evaluators.
 */
export function StartExperiment({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { projectId } = useSession();
  const datasets = useDatasets();
  const prompts = usePromptList();
  const evaluators = useEvaluators();
  const start = useStartExperiment();
  const form = useForm<Values>({
    initialValues: {
      name: '',
      dataset_id: '',
      version: '',
      split: '',
      kind: 'prompt',
      prompt: '',
      prompt_version: 'latest',
      template: 'Answer briefly: {{input}}',
      provider: 'openai',
      model: 'gpt-4o-mini',
      evaluator_ids: [],
      repetitions: '1',
    },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the experiment'),
      dataset_id: (v) => (v ? null : 'Choose a dataset'),
      prompt: (v, x) => (x.kind === 'prompt' && !v ? 'Choose a prompt' : null),
      template: (v, x) => (x.kind === 'model' && !v.trim() ? 'Write the prompt' : null),
      model: (v, x) => (x.kind === 'model' && !v.trim() ? 'Name the model' : null),
      repetitions: (v) => (Number.isInteger(Number(v)) && Number(v) >= 1 && Number(v) <= 10 ? null : 'From 1 to 10'),
    },
  });
  const v = form.values;
  const versions = useDatasetVersions(v.dataset_id);
  const dataset = datasets.data?.find((d) => d.id === v.dataset_id);
  const prompt = prompts.data?.find((p) => p.name === v.prompt && (!dataset || p.project_id === dataset.project_id));
  const usable = (evaluators.data ?? []).filter((e) => !dataset || e.project_id === dataset.project_id);
  const submit = form.onSubmit((x) => {
    const provider = isProvider(x.provider) ? x.provider : 'openai';
    const subject: ExperimentBody['subject'] =
      x.kind === 'prompt'
        ? { kind: 'prompt', prompt: `${x.prompt}@${x.prompt_version}`, provider }
        : { kind: 'prompt', template: x.template, provider, model: x.model.trim() };
    const body: ExperimentBody = {
      name: x.name.trim(),
      dataset_id: x.dataset_id,
      subject,
      evaluator_ids: x.evaluator_ids,
      repetitions: Number(x.repetitions),
      project_id: dataset?.project_id ?? projectId ?? undefined,
      ...(x.version ? { dataset_version: x.version } : {}),
      ...(x.split.trim() ? { split: x.split.trim() } : {}),
    };
    start.mutate(body, { onSuccess: () => (form.reset(), onClose()) });
  });
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={opened}
      onClose={onClose}
      title="Start an experiment"
      size="lg"
    >
      <form onSubmit={submit} aria-label="Start an experiment">
        <Stack gap="sm">
          <TextInput label="Name" placeholder="e.g. qa v2 on gpt-4o-mini" {...form.getInputProps('name')} />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NativeSelect
              label="Dataset"
              data={[
                { value: '', label: 'Choose…' },
                ...(datasets.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${fmt.int(d.items)} items)` })),
              ]}
              {...form.getInputProps('dataset_id')}
              onChange={(e) => (
                form.setFieldValue('dataset_id', e.currentTarget.value),
                form.setFieldValue('version', '')
              )}
            />
            <NativeSelect
              label="Version"
              disabled={!v.dataset_id}
              data={[
                { value: '', label: 'latest' },
                ...(versions.data ?? []).map((x) => ({
                  value: x.version,
                  label: `${fmt.time(x.version)} · ${x.change}`,
                })),
              ]}
              {...form.getInputProps('version')}
            />
          </SimpleGrid>
          <TextInput
            label="Split"
            placeholder="every item"
            description="only the items of this split (optional)"
            {...form.getInputProps('split')}
          />
          <Stack gap={4}>
            <Input.Label labelElement="div" id="exp-subject">
              Run through
            </Input.Label>
            <SegmentedControl
              aria-labelledby="exp-subject"
              data={[
                { value: 'prompt', label: 'A stored prompt' },
                { value: 'model', label: 'A model' },
              ]}
              value={v.kind}
              onChange={(k) => form.setFieldValue('kind', k === 'model' ? 'model' : 'prompt')}
            />
          </Stack>
          {v.kind === 'prompt' ? (
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect
                label="Prompt"
                data={[
                  { value: '', label: 'Choose…' },
                  ...[...new Set((prompts.data ?? []).map((p) => p.name))].map((n) => ({ value: n, label: n })),
                ]}
                {...form.getInputProps('prompt')}
              />
              <NativeSelect
                label="Prompt version"
                data={[
                  { value: 'latest', label: 'latest' },
                  ...Array.from({ length: prompt?.latest_version ?? 0 }, (_, i) => String(i + 1))
                    .reverse()
                    .map((n) => ({ value: n, label: `v${n}` })),
                ]}
                {...form.getInputProps('prompt_version')}
              />
            </SimpleGrid>
          ) : (
            <>
              <Textarea
                label="Prompt"
                description="{{input}} is the item’s input; an object input’s fields are variables too"
                autosize
                minRows={2}
                {...form.getInputProps('template')}
              />
              <TextInput label="Model" {...form.getInputProps('model')} />
            </>
          )}
          <NativeSelect label="Provider" data={[...EXPERIMENT_PROVIDERS]} {...form.getInputProps('provider')} />
          <Checkbox.Group
            label="Evaluators"
            description={
              usable.length ? undefined : 'No evaluators in this project: outputs are recorded without scores.'
            }
            {...form.getInputProps('evaluator_ids')}
          >
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt={6} spacing={6}>
              {usable.map((e) => (
                <Checkbox key={e.id} value={e.id} label={`${e.name} (${e.type.replace(/_/g, ' ')})`} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <TextInput
            label="Repetitions"
            description="each item is run this many times (1–10)"
            type="number"
            min={1}
            max={10}
            w={200}
            {...form.getInputProps('repetitions')}
          />
          {start.error && <ErrorState error={start.error} title="Could not start the experiment" />}
          <Group justify="flex-end" gap="sm">
            {v.dataset_id && (
              <Text size="xs" c="dimmed" mr="auto">
                {fmt.int((dataset?.items ?? 0) * Number(v.repetitions || 1))} item runs
              </Text>
            )}
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={start.isPending}>
              Start experiment
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
