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
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { useSession } from '../../../session/context';
import { useStartEvalRun, type EvalRunBody } from '../hooks/useEvalRuns';

const RANGES = [
  { value: '1', label: 'last hour' },
  { value: '24', label: 'last 24 hours' },
  { value: '168', label: 'last 7 days' },
  { value: '720', label: 'last 30 days' },
];

interface Values {
  evaluator_ids: string[];
  kind: 'requests' | 'traces';
  hours: string;
  limit: string;
  model: string;
  status: string;
  name: string;
  user_id: string;
  session_id: string;
}

/** Start a run: evaluators, and a filter of past calls or traces to score. */
export function StartRun({
  evaluators,
  opened,
  onClose,
}: {
  evaluators: Schema<'Evaluator'>[];
  opened: boolean;
  onClose: () => void;
}) {
  const { projectId } = useSession();
  const start = useStartEvalRun();
  const form = useForm<Values>({
    initialValues: {
      evaluator_ids: [],
      kind: 'requests',
      hours: '24',
      limit: '1000',
      model: '',
      status: '',
      name: '',
      user_id: '',
      session_id: '',
    },
    validate: {
      evaluator_ids: (v) => (v.length ? null : 'Choose at least one evaluator'),
      limit: (v) => (Number.isInteger(Number(v)) && Number(v) >= 1 && Number(v) <= 10000 ? null : 'From 1 to 10,000'),
      status: (v) => (!v || /^([1-5]\d\d|[1-5]xx)$/.test(v) ? null : 'A status like 200 or 5xx'),
    },
  });
  const v = form.values;
  const submit = form.onSubmit((x) => {
    const to = new Date();
    const from = new Date(to.getTime() - Number(x.hours) * 3600_000);
    const pick = <K extends string>(o: Record<K, string>) =>
      Object.fromEntries(
        Object.entries<string>(o)
          .filter(([, s]) => s.trim())
          .map(([k, s]) => [k, s.trim()]),
      );
    const window = { from: from.toISOString(), to: to.toISOString(), limit: Number(x.limit) };
    const target: EvalRunBody['target'] =
      x.kind === 'requests'
        ? {
            kind: 'requests',
            ...window,
            filter: pick({ model: x.model, status: x.status, user_id: x.user_id, session_id: x.session_id }),
          }
        : { kind: 'traces', ...window, filter: pick({ name: x.name, user_id: x.user_id, session_id: x.session_id }) };
    // A run scores one project: the chosen one, else the first evaluator's.
    const project = projectId ?? evaluators.find((e) => e.id === x.evaluator_ids[0])?.project_id;
    start.mutate(
      { evaluator_ids: x.evaluator_ids, target, ...(project ? { project_id: project } : {}) },
      { onSuccess: () => (form.reset(), onClose()) },
    );
  });
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={opened}
      onClose={onClose}
      title="Start an eval run"
      size="lg"
    >
      <form onSubmit={submit} aria-label="Start an eval run">
        <Stack gap="sm">
          <Checkbox.Group label="Evaluators" {...form.getInputProps('evaluator_ids')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt={6} spacing={6}>
              {evaluators.map((e) => (
                <Checkbox key={e.id} value={e.id} label={`${e.name} (${e.type.replace(/_/g, ' ')})`} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Stack gap={4}>
            <Input.Label labelElement="div" id="run-target">
              Score
            </Input.Label>
            <SegmentedControl
              aria-labelledby="run-target"
              data={[
                { value: 'requests', label: 'Calls' },
                { value: 'traces', label: 'Traces' },
              ]}
              value={v.kind}
              onChange={(k) => form.setFieldValue('kind', k === 'traces' ? 'traces' : 'requests')}
            />
          </Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NativeSelect label="From" data={RANGES} {...form.getInputProps('hours')} />
            <TextInput
              label="At most"
              description="the newest matching, up to 10,000"
              type="number"
              min={1}
              max={10000}
              {...form.getInputProps('limit')}
            />
            {v.kind === 'requests' ? (
              <>
                <TextInput label="Model" placeholder="any" {...form.getInputProps('model')} />
                <TextInput label="Status" placeholder="any (200, 5xx)" {...form.getInputProps('status')} />
              </>
            ) : (
              <TextInput label="Trace name" placeholder="any" {...form.getInputProps('name')} />
            )}
            <TextInput label="User" placeholder="any" {...form.getInputProps('user_id')} />
            <TextInput label="Session" placeholder="any" {...form.getInputProps('session_id')} />
          </SimpleGrid>
          {start.error && <ErrorState error={start.error} title="Could not start the run" />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={start.isPending}>
              Start run
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
