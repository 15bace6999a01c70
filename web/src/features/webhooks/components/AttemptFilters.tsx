import { Button, Group, SimpleGrid } from '@mantine/core';
import type { ReactNode } from 'react';
import { useIsPhone } from '../../../components/useIsPhone';
import { SelectFilter } from '../../../components/Filters';
import { ATTEMPT_EVENTS, ATTEMPT_OUTCOMES, ATTEMPT_RANGES, HTTP_CLASSES, type WebhooksSearch } from '../search';

const RANGE_LABELS = [
  { value: '1h', label: 'last hour' },
  { value: '24h', label: 'last 24 hours' },
  { value: '7d', label: 'last 7 days' },
  { value: '30d', label: 'last 30 days' },
] as const satisfies readonly { value: (typeof ATTEMPT_RANGES)[number]; label: string }[];
const HTTP_LABELS = HTTP_CLASSES.map((c) => ({ value: c, label: `HTTP ${c}` }));

// On a phone the four fit two abreast, each half the width, instead of wrapping unevenly.
function Frame({ phone, children }: { phone: boolean; children: ReactNode }) {
  return phone ? (
    <SimpleGrid cols={2} spacing="sm" verticalSpacing="xs">
      {children}
    </SimpleGrid>
  ) : (
    <Group gap="sm" align="flex-end" wrap="wrap">
      {children}
    </Group>
  );
}

/** The attempt log's filters, each one of the API's (`status`, `http_status`, `event_type`, `since`), in the URL. */
export function AttemptFilters({ s, set }: { s: WebhooksSearch; set: (patch: Partial<WebhooksSearch>) => void }) {
  const any = s.status ?? s.http_status ?? s.event_type ?? s.range;
  const phone = useIsPhone();
  const w = (px: number) => (phone ? '100%' : px);
  return (
    <Frame phone={phone}>
      <SelectFilter
        label="Outcome"
        value={s.status}
        options={ATTEMPT_OUTCOMES}
        onApply={(v) => set({ status: v })}
        w={w(140)}
      />
      <SelectFilter
        label="Response"
        value={s.http_status}
        options={HTTP_LABELS}
        onApply={(v) => set({ http_status: v })}
        w={w(140)}
      />
      <SelectFilter
        label="Event"
        value={s.event_type}
        options={ATTEMPT_EVENTS}
        onApply={(v) => set({ event_type: v })}
        w={w(170)}
      />
      <SelectFilter
        label="Started"
        value={s.range}
        options={RANGE_LABELS}
        anyLabel="any time"
        onApply={(v) => set({ range: v })}
        w={w(160)}
      />
      {any && (
        <Button
          variant="subtle"
          size="sm"
          // In the phone's grid it starts a row: its text lines up with the labels above.
          style={phone ? { justifySelf: 'start', marginInlineStart: 'calc(-1 * var(--button-padding-x))' } : undefined}
          onClick={() => set({ status: undefined, http_status: undefined, event_type: undefined, range: undefined })}
        >
          Clear filters
        </Button>
      )}
    </Frame>
  );
}
