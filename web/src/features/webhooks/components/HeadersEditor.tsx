import { ActionIcon, Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';

export interface HeaderRow {
  name: string;
  value: string;
}
const MAX_HEADERS = 20;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
// Set by the service on every attempt (docs/webhooks.md, "Custom headers"): the API refuses them.
const RESERVED = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
]);
const reserved = (n: string) => RESERVED.has(n) || /^(x-service-|webhook-|proxy-|sec-)/.test(n);

/** What is wrong with one row (null when fine), as the API would say it, before the form is sent. */
export function headerError(rows: HeaderRow[], i: number): { name?: string; value?: string } | null {
  const { name, value } = rows[i]!;
  const n = name.trim().toLowerCase();
  const out: { name?: string; value?: string } = {};
  if (!TOKEN.test(name.trim())) out.name = 'Letters, digits and - _ . (up to 64)';
  else if (reserved(n)) out.name = 'Set by the service';
  else if (rows.findIndex((r) => r.name.trim().toLowerCase() === n) !== i) out.name = 'Already listed';
  if (!value) out.value = 'A value';
  else if (value.length > 1024 || !/^[\x20-\x7e]+$/.test(value)) out.value = 'Printable ASCII, up to 1024';
  return out.name || out.value ? out : null;
}

/** The rows as the API takes them: `{ name: value }`. */
export const headersBody = (rows: HeaderRow[]) => Object.fromEntries(rows.map((r) => [r.name.trim(), r.value]));

/**
 * Name/value rows of a webhook's own headers (up to 20). Values are treated as secrets: typed into
 * password fields, never read back from the API.
 */
export function HeadersEditor({
  rows,
  onChange,
  errors,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  errors: boolean;
}) {
  const set = (i: number, patch: Partial<HeaderRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Stack gap="xs">
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No custom headers.
        </Text>
      )}
      {rows.map((r, i) => {
        const e = errors ? headerError(rows, i) : null;
        return (
          <Group key={i} gap="xs" align="flex-start" wrap="nowrap" data-testid="header-row">
            {/* Side by side on a wide screen; on a phone the name keeps the whole width above its value. */}
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing={4} style={{ flex: 1, minWidth: 0 }}>
              <TextInput
                aria-label={`Header ${i + 1} name`}
                placeholder="Name, e.g. Authorization"
                value={r.name}
                error={e?.name}
                onChange={(ev) => set(i, { name: ev.currentTarget.value })}
              />
              <TextInput
                aria-label={`Header ${i + 1} value`}
                placeholder="Value"
                type="password"
                value={r.value}
                autoComplete="off"
                error={e?.value}
                onChange={(ev) => set(i, { value: ev.currentTarget.value })}
              />
            </SimpleGrid>
            <ActionIcon
              variant="subtle"
              color="gray"
              size="lg"
              aria-label={`Remove header ${i + 1}`}
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
            >
              <IconTrash size={16} aria-hidden />
            </ActionIcon>
          </Group>
        );
      })}
      <Group gap="sm">
        <Button
          size="xs"
          variant="default"
          leftSection={<IconPlus size={14} aria-hidden />}
          disabled={rows.length >= MAX_HEADERS}
          onClick={() => onChange([...rows, { name: '', value: '' }])}
        >
          Add header
        </Button>
        <Text size="xs" c="dimmed">
          {rows.length} of {MAX_HEADERS}
        </Text>
      </Group>
    </Stack>
  );
}
