import { Button, Group, Modal, NativeSelect, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ErrorState } from '../../../components/QueryState';
import { useFromProduction, type ProductionBody } from '../hooks/useDatasets';
import { splitError } from '../lib/values';
import { ChangeSummary } from './ChangeSummary';

const RANGES = [
  { value: '1', label: 'Last hour' },
  { value: '24', label: 'Last 24 hours' },
  { value: '168', label: 'Last 7 days' },
  { value: '720', label: 'Last 30 days' },
];
interface Values {
  hours: string;
  limit: string;
  sample: 'newest' | 'random';
  model: string;
  status: string;
  property: string;
  user_id: string;
  split: string;
}

/**
 * Items from logged requests matching a filter: each call's messages as the input, its answer as the expected output.
 */
export function FromRequests({
  datasetId,
  projectId,
  onClose,
}: {
  datasetId: string;
  projectId: string;
  onClose: () => void;
}) {
  const add = useFromProduction(datasetId, projectId);
  const form = useForm<Values>({
    initialValues: {
      hours: '24',
      limit: '100',
      sample: 'newest',
      model: '',
      status: '2xx',
      property: '',
      user_id: '',
      split: '',
    },
    validate: {
      limit: (v) => (Number.isInteger(Number(v)) && Number(v) >= 1 && Number(v) <= 10000 ? null : 'From 1 to 10,000'),
      status: (v) =>
        !v.trim() || /^([1-5]\d\d|[1-5]xx)$/.test(v.trim()) ? null : 'A status like 200 or a class like 2xx',
      property: (v) => (!v.trim() || /^[^:]+:.+$/.test(v.trim()) ? null : 'name:value, e.g. tier:gold'),
      split: splitError,
    },
  });
  const submit = form.onSubmit((x) => {
    const to = new Date();
    const from = new Date(to.getTime() - Number(x.hours) * 3600_000);
    const filter: NonNullable<Extract<ProductionBody['source'], { kind: 'requests' }>['filter']> = {};
    if (x.model.trim()) filter.model = x.model.trim();
    if (x.status.trim()) filter.status = x.status.trim();
    if (x.user_id.trim()) filter.user_id = x.user_id.trim();
    if (x.property.trim()) filter.property = [x.property.trim()];
    add.mutate({
      source: { kind: 'requests', from: from.toISOString(), to: to.toISOString(), limit: Number(x.limit), filter },
      sample: x.sample,
      ...(x.split.trim() ? { split: x.split.trim() } : {}),
    });
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title="Add items from requests"
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} aria-label="Add items from requests">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            Each matching call becomes an item: its messages as the input, its answer as the expected output. A call
            added twice updates its item.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <NativeSelect label="Logged" data={RANGES} {...form.getInputProps('hours')} />
            <TextInput label="At most" type="number" min={1} max={10000} {...form.getInputProps('limit')} />
            <NativeSelect
              label="Pick"
              data={[
                { value: 'newest', label: 'The newest' },
                { value: 'random', label: 'A random sample' },
              ]}
              {...form.getInputProps('sample')}
            />
            <TextInput label="Model" placeholder="any" {...form.getInputProps('model')} />
            <TextInput label="Status" placeholder="any (200, 2xx)" {...form.getInputProps('status')} />
            <TextInput label="Property" placeholder="tier:gold" {...form.getInputProps('property')} />
            <TextInput label="User" placeholder="any" {...form.getInputProps('user_id')} />
            <TextInput label="Split" placeholder="optional" {...form.getInputProps('split')} />
          </SimpleGrid>
          {add.error && <ErrorState error={add.error} title="Could not add the items" />}
          {add.data && <ChangeSummary change={add.data} />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              {add.data ? 'Done' : 'Cancel'}
            </Button>
            <Button type="submit" loading={add.isPending}>
              Add items
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
