import { Text } from '@mantine/core';
import { type Col, DataTable } from './DataTable';
import classes from './RowCards.module.css';
import { useIsPhone } from './useIsPhone';

/**
 * A table column that also says where its value goes on a phone's card: `title` on the card's top
 * line, `wide` across the card under it; otherwise it takes half the card's width, in pairs below.
 */
export interface CardCol<T> extends Col<T> {
  card?: 'title' | 'wide';
}

interface Props<T> {
  rows: T[];
  columns: CardCol<T>[];
  caption: string;
  rowKey: (row: T) => string;
}

/**
 * Each row as a card: every value under its column's label (a description list), the cells drawn
 * by the same `render` as the table's, so links, buttons and badges are the same elements.
 */
export function RowCards<T>({ rows, columns, caption, rowKey }: Props<T>) {
  // The title, then the wide values (the ones the row is about, which need the room), then the pairs.
  const ordered = (['title', 'wide', undefined] as const).flatMap((k) => columns.filter((c) => c.card === k));
  return (
    <ul className={classes.list} aria-label={caption}>
      {rows.map((r) => (
        <li key={rowKey(r)} className={classes.card}>
          <dl className={classes.fields}>
            {ordered.map((c) => (
              <div key={c.key} className={c.card ? `${classes.field} ${classes[c.card]}` : classes.field}>
                <Text component="dt" size="xs" c="dimmed" fw={600}>
                  {c.label}
                </Text>
                <Text component="dd" size="sm">
                  {c.render(r)}
                </Text>
              </div>
            ))}
          </dl>
        </li>
      ))}
    </ul>
  );
}

/**
 * A `DataTable` from the `sm` breakpoint up, `RowCards` below it: on a phone a wide table would
 * show two columns at a time and scroll sideways.
 */
export function ResponsiveTable<T>({ minWidth, ...props }: Props<T> & { minWidth?: number }) {
  return useIsPhone() ? <RowCards {...props} /> : <DataTable {...props} minWidth={minWidth} />;
}
