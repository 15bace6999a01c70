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
import { useForm, type UseFormReturnType } from '@mantine/form';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { useSession } from '../../../session/context';
import {
  EMPTY,
  EVALUATOR_TYPES,
  fromEvaluator,
  JUDGE_OUTPUTS,
  JUDGE_PROVIDERS,
  toBody,
  TYPE_HELP,
  validate,
  type EvaluatorValues,
} from '../lib/evaluatorForm';
import { useCreateEvaluator, useUpdateEvaluator } from '../hooks/useEvaluators';
import { EvaluatorPreview } from './EvaluatorPreview';

const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };
const label = (s: string) => s.replace(/_/g, ' ');

/** Create or edit an evaluator: the fields of its type, from the contract. The type is fixed once created. */
export function EvaluatorForm({
  evaluator,
  opened,
  onClose,
}: {
  evaluator: Schema<'Evaluator'> | null;
  opened: boolean;
  onClose: () => void;
}) {
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={opened}
      onClose={onClose}
      title={evaluator ? `Edit ${evaluator.name}` : 'New evaluator'}
      size="lg"
    >
      {opened && <Fields key={evaluator?.id ?? 'new'} evaluator={evaluator} onDone={onClose} />}
    </Modal>
  );
}

/** The expected value, typed or read from the target by JSONPath. */
function Expected({ form }: { form: UseFormReturnType<EvaluatorValues> }) {
  const judge = form.values.type === 'llm_judge';
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }}>
      <TextInput label={judge ? 'Expected (optional)' : 'Expected value'} {...form.getInputProps('expected')} />
      <TextInput
        label="…or expected from (JSONPath)"
        placeholder="$.metadata.expected"
        styles={MONO}
        {...form.getInputProps('expected_path')}
      />
    </SimpleGrid>
  );
}

function Fields({ evaluator, onDone }: { evaluator: Schema<'Evaluator'> | null; onDone: () => void }) {
  const { projectId } = useSession();
  const create = useCreateEvaluator();
  const update = useUpdateEvaluator();
  const form = useForm<EvaluatorValues>({ initialValues: evaluator ? fromEvaluator(evaluator) : EMPTY, validate });
  const v = form.values;
  const save = form.onSubmit((values) => {
    const body = toBody(values, evaluator ? undefined : (projectId ?? undefined));
    if (evaluator)
      update.mutate(
        { id: evaluator.id, body: { name: body.name, description: body.description ?? null, config: body.config } },
        { onSuccess: onDone },
      );
    else create.mutate(body, { onSuccess: onDone });
  });
  const error = create.error ?? update.error;
  const hasField = v.type !== 'latency' && v.type !== 'cost' && v.type !== 'llm_judge';
  const hasExpected = v.type === 'exact_match' || v.type === 'levenshtein';
  return (
    <form onSubmit={save} aria-label="Evaluator">
      <Stack gap="sm">
        <TextInput
          label="Name"
          description="The scores it writes carry this name"
          data-autofocus
          {...form.getInputProps('name')}
        />
        <NativeSelect
          label="Type"
          disabled={!!evaluator}
          data={EVALUATOR_TYPES.map((t) => ({ value: t, label: label(t) }))}
          {...form.getInputProps('type')}
        />
        <Text size="sm" c="dimmed">
          {TYPE_HELP[v.type]}
        </Text>
        {v.type === 'regex' && (
          <Group grow align="flex-start">
            <TextInput label="Pattern" styles={MONO} {...form.getInputProps('pattern')} />
            <TextInput label="Flags" description="i, m, s, u" maw={120} {...form.getInputProps('flags')} />
          </Group>
        )}
        {v.type === 'contains' && (
          <>
            <TextInput label="Text to find" {...form.getInputProps('value')} />
            <Checkbox label="Case sensitive" {...form.getInputProps('case_sensitive', { type: 'checkbox' })} />
          </>
        )}
        {hasExpected && <Expected form={form} />}
        {v.type === 'exact_match' && (
          <Checkbox label="Trim whitespace before comparing" {...form.getInputProps('trim', { type: 'checkbox' })} />
        )}
        {v.type === 'json_schema' && (
          <Textarea
            label="JSON schema"
            autosize
            minRows={4}
            maxRows={14}
            styles={MONO}
            {...form.getInputProps('schema')}
          />
        )}
        {v.type === 'latency' && (
          <TextInput label="Longest latency (ms)" type="number" min={1} {...form.getInputProps('max_ms')} />
        )}
        {v.type === 'cost' && (
          <TextInput label="Highest cost (USD)" type="number" min={0} step="any" {...form.getInputProps('max_usd')} />
        )}
        {v.type === 'llm_judge' && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect label="Judge provider" data={[...JUDGE_PROVIDERS]} {...form.getInputProps('provider')} />
              <TextInput label="Judge model" {...form.getInputProps('model')} />
            </SimpleGrid>
            <Textarea
              label="Template"
              description="With {{input}}, {{output}}, {{expected}} and {{metadata.<key>}}"
              autosize
              minRows={4}
              maxRows={14}
              {...form.getInputProps('template')}
            />
            <Stack gap={4}>
              <Input.Label labelElement="div" id="judge-output">
                Score
              </Input.Label>
              <SegmentedControl
                aria-labelledby="judge-output"
                disabled={!!evaluator}
                data={JUDGE_OUTPUTS.map((o) => ({ value: o, label: o }))}
                value={v.output}
                onChange={(o) => form.setFieldValue('output', JUDGE_OUTPUTS.find((x) => x === o) ?? 'numeric')}
              />
            </Stack>
            {v.output === 'numeric' && (
              <Group grow>
                <TextInput label="Lowest score" type="number" {...form.getInputProps('min')} />
                <TextInput label="Highest score" type="number" {...form.getInputProps('max')} />
              </Group>
            )}
            {v.output === 'categorical' && (
              <TextInput label="Categories" description="Comma-separated" {...form.getInputProps('categories')} />
            )}
            <Expected form={form} />
          </>
        )}
        {hasField && (
          <NativeSelect
            label="Text evaluated"
            data={[
              { value: 'output', label: 'the output' },
              { value: 'input', label: 'the input' },
            ]}
            {...form.getInputProps('field')}
          />
        )}
        <Textarea label="Description (optional)" autosize minRows={1} {...form.getInputProps('description')} />
        <EvaluatorPreview form={form} />
        {error && <ErrorState error={error} title="Could not save the evaluator" />}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {evaluator ? 'Save' : 'Create evaluator'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
