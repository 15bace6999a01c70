import { Button, Group, NativeSelect, NumberInput, Paper, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ALERT_OPERATORS, ALERT_TYPES, type AlertOperator, type AlertType } from '../../../api/enums';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { useCreateAlert, useUpdateAlert } from '../hooks/useAlerts';

export const OPERATOR_WORDS: Record<AlertOperator, string> = {
  gt: 'above',
  gte: 'at least',
  lt: 'below',
  lte: 'at most',
};
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

type Rule = Schema<'AlertRule'>;
// A rule's type and operator come back as plain strings: kept when the editor offers them.
const asType = (t: string): AlertType => ALERT_TYPES.find((x) => x === t) ?? 'cost';
const asOperator = (o: string): AlertOperator => ALERT_OPERATORS.find((x) => x === o) ?? 'gt';
const fromRule = (r: Rule): Values => ({
  name: r.name,
  type: asType(r.type),
  operator: asOperator(r.operator),
  threshold: r.threshold,
  warning: r.warning_threshold ?? '',
  window: r.window_minutes,
  group: r.group_by ?? '',
});

/**
 * An alert rule: the measure, when it fires (and warns), over which window, per what. Without
 * `rule` it creates one; with it, it edits that rule (PATCH, only the fields the form holds).
 */
export function AlertEditor({ rule, onDone }: { rule?: Rule; onDone?: () => void } = {}) {
  const create = useCreateAlert();
  const update = useUpdateAlert();
  const write = rule ? update : create;
  const form = useForm<Values>({
    initialValues: rule
      ? fromRule(rule)
      : { name: '', type: 'cost', operator: 'gt', threshold: '', warning: '', window: 15, group: '' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the rule'),
      threshold: (v) => (v === '' ? 'Set a threshold' : null),
      window: (v) => (typeof v === 'number' && v >= 1 && v <= 1440 ? null : '1 to 1,440 minutes'),
    },
  });
  const submit = form.onSubmit((v) => {
    if (rule) {
      update.mutate(
        {
          id: rule.id,
          body: {
            name: v.name.trim(),
            type: v.type,
            operator: v.operator,
            threshold: Number(v.threshold),
            window_minutes: Number(v.window),
            warning_threshold: v.warning === '' ? null : Number(v.warning),
            group_by: v.group || null,
          },
        },
        { onSuccess: () => onDone?.() },
      );
      return;
    }
    create.mutate(
      {
        name: v.name.trim(),
        type: v.type,
        operator: v.operator,
        threshold: Number(v.threshold),
        window_minutes: Number(v.window),
        ...(v.warning !== '' ? { warning_threshold: Number(v.warning) } : {}),
        ...(v.group ? { group_by: v.group } : {}),
      },
      { onSuccess: () => form.reset() },
    );
  });
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit}>
      <Stack gap="sm">
        <Title order={rule ? 3 : 2} size="h4">
          {rule ? `Edit “${rule.name}”` : 'New alert rule'}
        </Title>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
          <TextInput label="Name" {...form.getInputProps('name')} />
          <NativeSelect
            label="Measure"
            data={ALERT_TYPES.map((t) => ({ value: t, label: t.replace(/_/g, ' ') }))}
            {...form.getInputProps('type')}
          />
          <NativeSelect
            label="Is"
            data={ALERT_OPERATORS.map((o) => ({ value: o, label: OPERATOR_WORDS[o] }))}
            {...form.getInputProps('operator')}
          />
          <NumberInput label="Threshold" decimalScale={6} {...form.getInputProps('threshold')} />
          <NumberInput label="Warning at" description="optional" decimalScale={6} {...form.getInputProps('warning')} />
          <NumberInput label="Window (minutes)" min={1} max={1440} {...form.getInputProps('window')} />
          <NativeSelect
            label="Per"
            data={[
              { value: '', label: 'everything' },
              ...GROUPS.map((g) => ({ value: g, label: g.replace('_', ' ') })),
            ]}
            {...form.getInputProps('group')}
          />
        </SimpleGrid>
        {write.error && (
          <ErrorState error={write.error} title={rule ? 'Could not save the rule' : 'Could not create the rule'} />
        )}
        <Group gap="sm">
          <Button type="submit" loading={write.isPending}>
            {rule ? 'Save rule' : 'Create rule'}
          </Button>
          {rule && onDone && (
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
