import { ActionIcon, Button, Group, NativeSelect, Paper, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import classes from './FilterBuilder.module.css';
import {
  FIELD_ORDER,
  FIELDS,
  OP_LABELS,
  rowsToSearch,
  searchToRows,
  type FilterField,
  type FilterOp,
  type FilterRow,
  type FilterSearch,
} from '../lib/filters';

const FIELD_OPTIONS = FIELD_ORDER.map((f) => ({ value: f, label: FIELDS[f].label }));
const YES_NO = [
  { value: 'true', label: 'yes' },
  { value: 'false', label: 'no' },
];
const blank = (field: FilterField = 'model'): FilterRow => ({
  field,
  op: FIELDS[field].ops[0]!,
  value: FIELDS[field].kind === 'bool' ? 'true' : '',
  ...(field === 'property' ? { name: '' } : {}),
});

/**
 * Field / operator / value rows over the request log's whole filter language. Edits stay local
 * until Apply (or Enter), which writes the URL; the rows are read back from the URL, so a shared
 * link opens with the same builder. A row the API would refuse is marked and not applied.
 */
export function FilterBuilder({ value, onApply }: { value: FilterSearch; onApply: (search: FilterSearch) => void }) {
  // Remounted by the page when the URL changes, so the rows always start from what the URL says.
  const [rows, setRows] = useState<FilterRow[]>(() => searchToRows(value));
  const [errors, setErrors] = useState<Record<number, string>>({});
  const set = (i: number, patch: Partial<FilterRow>) =>
    setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const changeField = (i: number, field: FilterField) =>
    setRows((rs) =>
      rs.map((r, j) =>
        j === i
          ? { ...blank(field), value: FIELDS[field].kind === FIELDS[r.field].kind ? r.value : blank(field).value }
          : r,
      ),
    );
  const apply = (e?: FormEvent) => {
    e?.preventDefault();
    const kept = rows.filter((r) => r.value.trim() || r.field === 'property');
    const out = rowsToSearch(kept);
    setErrors(out.errors);
    if (Object.keys(out.errors).length) return setRows(kept);
    onApply(out.search);
  };
  const remove = (i: number) => {
    const next = rows.filter((_, j) => j !== i);
    setRows(next);
    setErrors({});
    // Removing an applied row applies at once: the list follows what the rows say.
    const out = rowsToSearch(next);
    if (!Object.keys(out.errors).length) onApply(out.search);
  };
  return (
    <Paper withBorder p="sm" component="form" onSubmit={apply} aria-label="Filter builder" w="100%">
      <Stack gap="xs">
        {rows.length === 0 && (
          <Text size="sm" c="dimmed">
            No filter: every call in the range. Add one by model, status, cost, latency, user, custom property…
          </Text>
        )}
        {rows.map((row, i) => {
          const def = FIELDS[row.field];
          const n = i + 1;
          return (
            <div key={i} className={classes.row} data-testid="filter-row">
              <NativeSelect
                aria-label={`Filter ${n}: field`}
                size="sm"
                className={`${classes.wide} ${classes.field}`}
                data={FIELD_OPTIONS}
                value={row.field}
                onChange={(e) => changeField(i, e.currentTarget.value as FilterField)}
              />
              {row.field === 'property' && (
                <TextInput
                  aria-label={`Filter ${n}: property name`}
                  size="sm"
                  className={`${classes.wide} ${classes.name}`}
                  placeholder="name (e.g. tier)"
                  value={row.name ?? ''}
                  onChange={(e) => set(i, { name: e.currentTarget.value })}
                  error={errors[i]?.startsWith('A property name') ? errors[i] : undefined}
                />
              )}
              <NativeSelect
                aria-label={`Filter ${n}: operator`}
                size="sm"
                className={classes.op}
                data={def.ops.map((o) => ({ value: o, label: OP_LABELS[o] }))}
                value={row.op}
                onChange={(e) => set(i, { op: e.currentTarget.value as FilterOp })}
              />
              {def.kind === 'bool' ? (
                <NativeSelect
                  aria-label={`Filter ${n}: value`}
                  size="sm"
                  className={classes.value}
                  data={YES_NO}
                  value={row.value}
                  onChange={(e) => set(i, { value: e.currentTarget.value })}
                />
              ) : (
                <TextInput
                  aria-label={`Filter ${n}: value`}
                  size="sm"
                  className={classes.value}
                  placeholder={def.hint}
                  value={row.value}
                  inputMode={def.kind === 'number' ? 'decimal' : undefined}
                  rightSection={
                    def.unit ? (
                      <Text size="xs" c="dimmed">
                        {def.unit}
                      </Text>
                    ) : undefined
                  }
                  rightSectionWidth={def.unit ? 40 : undefined}
                  onChange={(e) => set(i, { value: e.currentTarget.value })}
                  error={errors[i] && !errors[i]!.startsWith('A property name') ? errors[i] : undefined}
                />
              )}
              <ActionIcon
                variant="subtle"
                color="gray"
                size={36}
                aria-label={`Remove filter ${n}`}
                onClick={() => remove(i)}
              >
                <IconX size={16} aria-hidden />
              </ActionIcon>
            </div>
          );
        })}
        <Group gap="xs">
          <Button
            size="xs"
            variant="default"
            leftSection={<IconPlus size={14} aria-hidden />}
            onClick={() => setRows((rs) => [...rs, blank()])}
          >
            Add filter
          </Button>
          {rows.length > 0 && (
            <Button size="xs" type="submit">
              Apply filters
            </Button>
          )}
          {rows.length > 0 && (
            <Button size="xs" variant="subtle" onClick={() => (setRows([]), setErrors({}), onApply({}))}>
              Clear all
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
