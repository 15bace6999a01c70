import { SimpleGrid, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import classes from './Facts.module.css';

/** A description list (term → value), two columns from tablet width up. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className={classes.facts}>
      {items.map(([k, v]) => (
        <div key={k} className={classes.row}>
          <Text component="dt" c="dimmed" size="sm">
            {k}
          </Text>
          <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>
            {v}
          </Text>
        </div>
      ))}
    </dl>
  );
}

/** Headline figures (KPIs) in cards. */
export function Kpis({ items }: { items: [string, ReactNode][] }) {
  return (
    <SimpleGrid component="dl" className="kpis" cols={{ base: 2, sm: 3, lg: items.length }} spacing="md" m={0}>
      {items.map(([k, v]) => (
        <div key={k} className={classes.kpi}>
          <Text component="dt" c="dimmed" size="sm">
            {k}
          </Text>
          <Text component="dd" m={0} mt={4} fz="xl" fw={650}>
            {v}
          </Text>
        </div>
      ))}
    </SimpleGrid>
  );
}
