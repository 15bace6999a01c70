import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** Every page: an h1 with an optional one-line purpose, actions on the right, filters below. */
export function Page({
  title,
  description,
  actions,
  filters,
  children,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  filters?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Stack gap="lg" component="section" aria-labelledby="page-title">
      <Group justify="space-between" align="flex-end" gap="md" wrap="wrap">
        <div style={{ minWidth: 0 }}>
          <Title order={1} size="h2" id="page-title" style={{ overflowWrap: 'anywhere' }}>
            {title}
          </Title>
          {description && (
            <Text c="dimmed" size="sm" mt={4}>
              {description}
            </Text>
          )}
        </div>
        {actions && <Group gap="sm">{actions}</Group>}
      </Group>
      {filters && (
        <Group gap="sm" align="flex-end" wrap="wrap" role="search" aria-label="Filters">
          {filters}
        </Group>
      )}
      {children}
    </Stack>
  );
}

/** A titled block inside a page (h2). */
export function Section({ title, actions, children }: { title: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <Stack gap="sm" component="section">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {actions}
      </Group>
      {children}
    </Stack>
  );
}
