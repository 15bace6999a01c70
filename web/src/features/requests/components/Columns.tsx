import { Badge, Button, Checkbox, Popover, SimpleGrid, Stack, Text } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { IconColumns } from '@tabler/icons-react';
import type { Schema } from '../../../api/types';
import { HttpStatus } from '../../../components/StatusBadge';
import type { Column } from '../../../components/VirtualTable';
import * as fmt from '../../../lib/format';

type Row = Schema<'RequestRecord'>;

/** Every column the request log can show; `on`: shown until the person chooses otherwise. */
export const ALL_COLUMNS: (Column<Row> & { on?: boolean })[] = [
  { key: 't', label: 'Time', width: '1.5fr', on: true, render: (r) => fmt.time(r.created_at) },
  { key: 'p', label: 'Provider', width: '.9fr', render: (r) => r.provider },
  { key: 'm', label: 'Model', width: '1.3fr', on: true, render: (r) => r.model },
  { key: 's', label: 'Status', width: '.7fr', on: true, render: (r) => <HttpStatus code={r.status_code} /> },
  { key: 'tok', label: 'Tokens', width: '.8fr', on: true, render: (r) => fmt.int(r.total_tokens) },
  {
    key: 'io',
    label: 'In / out',
    width: '1fr',
    render: (r) => `${fmt.int(r.prompt_tokens)} / ${fmt.int(r.completion_tokens)}`,
  },
  { key: 'c', label: 'Cost', width: '.9fr', on: true, render: (r) => fmt.usd(r.cost_usd) },
  { key: 'l', label: 'Latency', width: '.8fr', on: true, render: (r) => fmt.ms(r.latency_ms) },
  { key: 'ttfb', label: 'First byte', width: '.8fr', render: (r) => fmt.ms(r.ttfb_ms) },
  {
    key: 'cache',
    label: 'Cache',
    width: '.7fr',
    render: (r) =>
      r.cache_hit ? (
        <Badge size="sm" variant="light" color="teal">
          hit
        </Badge>
      ) : (
        '—'
      ),
  },
  { key: 'u', label: 'User', width: '1fr', on: true, render: (r) => r.user_id ?? '—' },
  { key: 'sess', label: 'Session', width: '1fr', render: (r) => r.session_id ?? '—' },
  { key: 'tr', label: 'Trace', width: '1fr', render: (r) => r.trace_id ?? '—' },
  {
    key: 'props',
    label: 'Properties',
    width: '1.4fr',
    render: (r) =>
      Object.entries(r.properties ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(' · ') || '—',
  },
];
const DEFAULT = ALL_COLUMNS.filter((c) => c.on).map((c) => c.key);
const KNOWN = new Set(ALL_COLUMNS.map((c) => c.key));

/** The chosen columns, kept in this browser (localStorage) across visits. */
export function useColumns() {
  const [keys, setKeys] = useLocalStorage<string[]>({
    key: 'gateway.requests.columns',
    defaultValue: DEFAULT,
    getInitialValueInEffect: false,
  });
  const valid = Array.isArray(keys) ? keys.filter((k) => KNOWN.has(k)) : [];
  const chosen = valid.length ? valid : DEFAULT;
  return { keys: chosen, columns: ALL_COLUMNS.filter((c) => chosen.includes(c.key)), setKeys };
}

/** A button opening the list of columns to show or hide (at least one stays). */
export function ColumnChooser({ keys, onChange }: { keys: string[]; onChange: (keys: string[]) => void }) {
  return (
    <Popover position="bottom-end" shadow="md" withinPortal trapFocus>
      <Popover.Target>
        <Button variant="default" size="sm" leftSection={<IconColumns size={16} aria-hidden />}>
          Columns ({keys.length})
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs">
          <Text size="sm" fw={600}>
            Columns to show
          </Text>
          <Checkbox.Group
            aria-label="Columns to show"
            value={keys}
            onChange={(v) => v.length && onChange(ALL_COLUMNS.map((c) => c.key).filter((k) => v.includes(k)))}
          >
            <SimpleGrid cols={2} spacing={6} verticalSpacing={6}>
              {ALL_COLUMNS.map((c) => (
                <Checkbox key={c.key} value={c.key} label={c.label} size="sm" />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Button size="xs" variant="subtle" onClick={() => onChange(DEFAULT)}>
            Reset to the default
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
