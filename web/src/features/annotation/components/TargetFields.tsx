import { Input, NativeSelect, SegmentedControl, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { RANGES, type TargetValues } from '../lib/targets';

const ID_KINDS = [
  { value: 'request', label: 'Request ids' },
  { value: 'trace', label: 'Trace ids' },
  { value: 'session', label: 'Session ids' },
] as const;
const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)' } };
const idKind = (s: string) => ID_KINDS.find((k) => k.value === s)?.value ?? 'request';
const range = RANGES.map((r) => ({ value: r.value, label: r.label.replace(/^the /, '') }));

/**
 * The items of a campaign: the newest calls or traces of a window (optionally of one model), or
 * ids pasted from the request log, a trace or a session. Shared by "New campaign" and "Add items".
 */
export function TargetFields({ form, idPrefix }: { form: UseFormReturnType<TargetValues>; idPrefix: string }) {
  const v = form.values;
  return (
    <Stack gap="sm">
      <Stack gap={4}>
        <Input.Label labelElement="div" id={`${idPrefix}-mode`}>
          Items
        </Input.Label>
        <SegmentedControl
          aria-labelledby={`${idPrefix}-mode`}
          value={v.mode}
          onChange={(m) => form.setFieldValue('mode', m === 'ids' ? 'ids' : 'recent')}
          data={[
            { value: 'recent', label: 'Recent traffic' },
            { value: 'ids', label: 'Paste ids' },
          ]}
        />
      </Stack>
      {v.mode === 'recent' ? (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NativeSelect
            label="Kind"
            value={v.kind}
            onChange={(e) => form.setFieldValue('kind', e.currentTarget.value === 'traces' ? 'traces' : 'requests')}
            data={[
              { value: 'requests', label: 'Calls' },
              { value: 'traces', label: 'Traces' },
            ]}
          />
          <NativeSelect label="From" data={range} {...form.getInputProps('hours')} />
          <TextInput
            label="At most"
            description="the newest matching, up to 10,000"
            type="number"
            min={1}
            max={10000}
            {...form.getInputProps('limit')}
          />
          {v.kind === 'requests' && (
            <TextInput label="Model" placeholder="any model" {...form.getInputProps('model')} />
          )}
        </SimpleGrid>
      ) : (
        <>
          <NativeSelect
            label="Kind of id"
            value={v.idKind}
            data={[...ID_KINDS]}
            onChange={(e) => form.setFieldValue('idKind', idKind(e.currentTarget.value))}
          />
          <Textarea
            label="Ids"
            description="one per line, or separated by commas; up to 1,000"
            autosize
            minRows={3}
            maxRows={8}
            styles={MONO}
            {...form.getInputProps('ids')}
          />
        </>
      )}
    </Stack>
  );
}
