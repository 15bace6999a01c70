import { Table, VisuallyHidden } from '@mantine/core';
import type { ReactNode } from 'react';

export interface Col<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  /** Right-align numbers. */
  numeric?: boolean;
}

/**
 * A plain table for short lists (up to a few hundred rows): sticky-free, striped on hover, and
 * scrolled sideways on a phone instead of squeezing the columns.
 */
export function DataTable<T>({
  rows,
  columns,
  caption,
  rowKey,
  minWidth = 640,
}: {
  rows: T[];
  columns: Col<T>[];
  caption: string;
  rowKey: (row: T) => string;
  minWidth?: number;
}) {
  return (
    // Focusable and named: on a phone the table scrolls sideways, and keyboard users must reach it.
    <Table.ScrollContainer
      minWidth={minWidth}
      type="native"
      tabIndex={0}
      role="region"
      aria-label={caption}
      pos="relative"
    >
      <Table highlightOnHover verticalSpacing="xs" fz="sm">
        <caption>
          <VisuallyHidden>{caption}</VisuallyHidden>
        </caption>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.key} scope="col" ta={c.numeric ? 'right' : undefined}>
                {c.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={rowKey(r)}>
              {columns.map((c) => (
                <Table.Td key={c.key} ta={c.numeric ? 'right' : undefined}>
                  {c.render(r)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
