import { Badge } from '@mantine/core';

/** The colour of a status word across areas: green is fine, red needs a look, yellow is in between. */
const TONE: Record<string, string> = {
  ok: 'green',
  completed: 'green',
  delivered: 'green',
  active: 'green',
  resolved: 'green',
  synced: 'green',
  accepted: 'green',
  error: 'red',
  failed: 'red',
  critical: 'red',
  high: 'red',
  dead_lettered: 'red',
  triggered: 'red',
  open: 'orange',
  revoked: 'gray',
  running: 'blue',
  pending: 'blue',
  awaiting_outputs: 'blue',
  medium: 'yellow',
  warning: 'yellow',
  acknowledged: 'yellow',
  low: 'gray',
  paused: 'gray',
  cancelled: 'gray',
  dismissed: 'gray',
  expired: 'gray',
  closed: 'gray',
  no_data: 'gray',
};

// The label keeps its width: a squeezed table column must not cut the word to "dea…" (tables scroll sideways instead).
const WHOLE = { label: { overflow: 'visible' } } as const;

export function StatusBadge({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  return (
    <Badge variant="light" color={TONE[value] ?? 'gray'} radius="sm" tt="none" fw={600} styles={WHOLE}>
      {value.replace(/_/g, ' ')}
    </Badge>
  );
}

/** An HTTP status code, coloured by class. */
export function HttpStatus({ code }: { code: number | null | undefined }) {
  if (code === null || code === undefined) return <>—</>;
  return (
    <Badge
      variant="light"
      color={code >= 500 ? 'red' : code >= 400 ? 'orange' : 'green'}
      radius="sm"
      fw={600}
      styles={WHOLE}
    >
      {code}
    </Badge>
  );
}
