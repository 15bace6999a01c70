import { Badge, Text, TextInput } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { AppLink } from '../../../components/Links';

type Score = Schema<'Score'>;
const short = (id: string) => (id.length > 14 ? `${id.slice(0, 8)}…` : id);

/** The score's value as people read it: `0.875`, `good`, `true`. */
export function ScoreValue({ s }: { s: Score }) {
  if (s.data_type === 'numeric')
    return (
      <Text size="sm" ff="monospace">
        {s.value === null ? '—' : String(Math.round(s.value * 10_000) / 10_000)}
      </Text>
    );
  return (
    <Badge
      variant="light"
      tt="none"
      color={s.string_value === 'false' ? 'red' : s.data_type === 'boolean' ? 'green' : 'indigo'}
    >
      {s.string_value ?? String(s.value ?? '—')}
    </Badge>
  );
}

/** A link to what the score is on: the request, the trace (or its span), the session, the experiment. */
export function ScoreTarget({ s }: { s: Score }) {
  const stop = { onClick: (e: { stopPropagation: () => void }) => e.stopPropagation() };
  if (s.request_id)
    return (
      <AppLink size="sm" to="/requests/$id" params={{ id: s.request_id }} {...stop}>
        Request {short(s.request_id)}
      </AppLink>
    );
  if (s.trace_id)
    return (
      <AppLink
        size="sm"
        to="/traces/$id"
        params={{ id: s.trace_id }}
        search={s.span_id ? { span: s.span_id } : {}}
        {...stop}
      >
        {s.span_id ? `Span ${short(s.span_id)}` : `Trace ${short(s.trace_id)}`}
      </AppLink>
    );
  if (s.session_id)
    return (
      <AppLink size="sm" to="/sessions/$id" params={{ id: s.session_id }} {...stop}>
        Session {short(s.session_id)}
      </AppLink>
    );
  if (s.experiment_id)
    return (
      <AppLink size="sm" to="/experiments/$id" params={{ id: s.experiment_id }} {...stop}>
        Experiment item {short(s.experiment_item_id ?? '')}
      </AppLink>
    );
  return (
    <Text size="sm" c="dimmed">
      —
    </Text>
  );
}

const toLocal = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ''
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** A date and time bound to a URL param as an ISO instant; applied when leaving the field. */
export function DateFilter({
  label,
  value,
  onApply,
}: {
  label: string;
  value: string | undefined;
  onApply: (v: string | undefined) => void;
}) {
  return (
    <TextInput
      key={value ?? ''}
      type="datetime-local"
      label={label}
      size="sm"
      w={200}
      defaultValue={toLocal(value)}
      onBlur={(e) => {
        const v = e.currentTarget.value ? new Date(e.currentTarget.value).toISOString() : undefined;
        if (v !== value) onApply(v);
      }}
    />
  );
}
