import { Button, Group, NativeSelect, NumberInput, Paper, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ALERT_OPERATORS, ALERT_TYPES, type AlertOperator, type AlertType } from '../../../api/enums';
import { ErrorState } from '../../../components/QueryState';
import { useCreateAlert } from '../hooks/useAlerts';

export const OPERATOR_WORDS: Record<AlertOperator, string> = { gt: 'above', gte: 'at least', lt: 'below', lte: 'at most' };
const GROUPS = ['model', 'provider', 'user', 'api_key'] as const;

interface Values {
  name: string;
  type: AlertType;
  operator: AlertOperator;
  threshold: number | string;
  warning: number | string;
  window: number | string;
  group: string;
}

/** A new alert rule: the measure, when it fires (and warns), over which window, per what. */
export function AlertEditor() {
  const create = useCreateAlert();
  const form = useForm<Values>({
    initialValues: { name: '', type: 'cost', operator: 'gt', threshold: '', warning: '', window: 15, group: '' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the rule'),
      threshold: (v) => (v === '' ? 'Set a threshold' : null),
      window: (v) => (typeof v === 'number' && v >= 1 && v <= 1440 ? null : '1 to 1,440 minutes'),
    },
  });
  const submit = form.onSubmit((v) =>
    create.mutate(
      {
        name: v.name.trim(), type: v.type, operator: v.operator, threshold: Number(v.threshold), window_minutes: Number(v.window),
        ...(v.warning !== '' ? { warning_threshold: Number(v.warning) } : {}), ...(v.group ? { group_by: v.group } : {}),
      },
      { onSuccess: () => form.reset() },
    ),
  );
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit}>
      <Stack gap="sm">
        <Title order={2} size="h4">New alert rule</Title>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
          <TextInput label="Name" {...form.getInputProps('name')} />
          <NativeSelect label="Measure" data={ALERT_TYPES.map((t) => ({ value: t, label: t.replace(/_/g, ' ') }))} {...form.getInputProps('type')} />
          <NativeSelect label="Is" data={ALERT_OPERATORS.map((o) => ({ value: o, label: OPERATOR_WORDS[o] }))} {...form.getInputProps('operator')} />
          <NumberInput label="Threshold" decimalScale={6} {...form.getInputProps('threshold')} />
          <NumberInput label="Warning at" description="optional" decimalScale={6} {...form.getInputProps('warning')} />
          <NumberInput label="Window (minutes)" min={1} max={1440} {...form.getInputProps('window')} />
          <NativeSelect label="Per" data={[{ value: '', label: 'everything' }, ...GROUPS.map((g) => ({ value: g, label: g.replace('_', ' ') }))]} {...form.getInputProps('group')} />
        </SimpleGrid>
        {create.error && <ErrorState error={create.error} title="Could not create the rule" />}
        <Group><Button type="submit" loading={create.isPending}>Create rule</Button></Group>
      </Stack>
    </Paper>
  );
}
