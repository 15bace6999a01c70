import { Button, Checkbox, Group, Modal, NativeSelect, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { PROVIDERS } from '../../../api/enums';
import { ErrorState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useSession } from '../../../session/context';
import { useDatasets, useDatasetVersions } from '../../datasets/hooks/useDatasets';
import { useEvaluators } from '../../evaluators/hooks/useEvaluators';
import { usePromptList } from '../../prompts/hooks/usePrompts';
import { useStartPromptExperiment, type PromptExperimentBody } from '../hooks/useExperiments';

type Provider = PromptExperimentBody['variants'][number]['subject']['provider'];
const CHOICES = PROVIDERS.filter((p): p is Provider => p !== 'gemini');

interface Values {
  name: string;
  dataset_id: string;
  version: string;
  variants: string[];
  provider: string;
  evaluator_ids: string[];
  repetitions: string;
}

/** Start a prompt experiment: 2–8 stored prompt versions run over the same dataset items, side by side. */
export function StartPromptExperiment({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { projectId } = useSession();
  const datasets = useDatasets();
  const prompts = usePromptList();
  const evaluators = useEvaluators();
  const start = useStartPromptExperiment();
  const form = useForm<Values>({
    initialValues: {
      name: '',
      dataset_id: '',
      version: '',
      variants: [],
      provider: 'openai',
      evaluator_ids: [],
      repetitions: '1',
    },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the experiment'),
      dataset_id: (v) => (v ? null : 'Choose a dataset'),
      variants: (v) => (v.length >= 2 && v.length <= 8 ? null : 'Choose 2 to 8 prompt versions'),
      repetitions: (v) => (Number.isInteger(Number(v)) && Number(v) >= 1 && Number(v) <= 10 ? null : 'From 1 to 10'),
    },
  });
  const v = form.values;
  const versions = useDatasetVersions(v.dataset_id);
  const dataset = datasets.data?.find((d) => d.id === v.dataset_id);
  const inScope = <T extends { project_id: string }>(rows: T[] | undefined) =>
    (rows ?? []).filter((r) => !dataset || r.project_id === dataset.project_id);
  const options = inScope(prompts.data).flatMap((p) =>
    Array.from({ length: p.latest_version ?? 0 }, (_, i) => ({
      value: `${p.name}@${i + 1}`,
      label: `${p.name} v${i + 1}`,
    })),
  );
  const submit = form.onSubmit((x) => {
    const provider = CHOICES.find((p) => p === x.provider) ?? 'openai';
    const body: PromptExperimentBody = {
      name: x.name.trim(),
      project_id: dataset?.project_id ?? projectId ?? undefined,
      variants: x.variants.map((prompt) => ({
        label: prompt.replace('@', ' v'),
        subject: { kind: 'prompt', prompt, provider },
      })),
      items: { dataset_id: x.dataset_id, ...(x.version ? { dataset_version: x.version } : {}) },
      evaluator_ids: x.evaluator_ids,
      repetitions: Number(x.repetitions),
    };
    start.mutate(body, { onSuccess: () => (form.reset(), onClose()) });
  });
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={opened}
      onClose={onClose}
      title="Start a prompt experiment"
      size="lg"
    >
      <form onSubmit={submit} aria-label="Start a prompt experiment">
        <Stack gap="sm">
          <TextInput label="Name" placeholder="e.g. greeting v1 vs v2" {...form.getInputProps('name')} />
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
          <Checkbox.Group
            label="Prompt versions to compare"
            description="each runs over the same items, with its own model and parameters"
            {...form.getInputProps('variants')}
          >
            <SimpleGrid cols={{ base: 1, sm: 3 }} mt={6} spacing={6}>
              {options.map((o) => (
                <Checkbox key={o.value} value={o.value} label={o.label} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <NativeSelect label="Provider" data={[...CHOICES]} {...form.getInputProps('provider')} />
          <Checkbox.Group label="Evaluators" {...form.getInputProps('evaluator_ids')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt={6} spacing={6}>
              {inScope(evaluators.data).map((e) => (
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
          {start.error && <ErrorState error={start.error} title="Could not start the prompt experiment" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={start.isPending}>
              Start prompt experiment
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
