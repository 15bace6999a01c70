import { Badge, Group, NativeSelect, Switch, TextInput } from '@mantine/core';
import { RANGE_LABELS, RANGES, type Range } from '../lib/filters';

/** ISO ⇄ the `datetime-local` input's local wall time (no zone). */
const toLocal = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** A date range: presets (open-ended up to now) or custom from / to, written to the URL. */
export function RangeControl({
  range,
  from,
  to,
  onChange,
}: {
  range: Range | undefined;
  from?: string;
  to?: string;
  onChange: (v: { range?: Range; from?: string; to?: string }) => void;
}) {
  return (
    <>
      <NativeSelect
        label="Date range"
        size="sm"
        w={160}
        value={range ?? ''}
        data={[{ value: '', label: RANGE_LABELS.all }, ...RANGES.map((r) => ({ value: r, label: RANGE_LABELS[r] }))]}
        onChange={(e) => {
          const r = RANGES.find((x) => x === e.currentTarget.value);
          // A custom range starts as the last 24 hours, to be moved from there.
          onChange(
            r === 'custom'
              ? { range: r, from: from ?? new Date(Date.now() - 86_400_000).toISOString(), to }
              : { range: r },
          );
        }}
      />
      {range === 'custom' && (
        <>
          <TextInput
            key={`f${from ?? ''}`}
            type="datetime-local"
            label="From"
            size="sm"
            w={200}
            defaultValue={toLocal(from)}
            onBlur={(e) => onChange({ range, from: toIso(e.currentTarget.value), to })}
          />
          <TextInput
            key={`t${to ?? ''}`}
            type="datetime-local"
            label="To"
            size="sm"
            w={200}
            defaultValue={toLocal(to)}
            onBlur={(e) => onChange({ range, from, to: toIso(e.currentTarget.value) })}
          />
        </>
      )}
    </>
  );
}

/** Live tail: the newest rows every few seconds, paused while the person scrolls or points at the list. */
export function LiveToggle({
  on,
  paused,
  onChange,
}: {
  on: boolean;
  paused: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <Group gap="xs" wrap="nowrap" h={36}>
      <Switch label="Live tail" checked={on} onChange={(e) => onChange(e.currentTarget.checked)} />
      {on && (
        <Badge variant="light" color={paused ? 'gray' : 'green'} size="sm" aria-live="polite" data-testid="live-state">
          {paused ? 'paused while you read' : 'live'}
        </Badge>
      )}
    </Group>
  );
}
