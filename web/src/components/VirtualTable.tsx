import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import classes from './VirtualTable.module.css';

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  /** A CSS grid track: `1fr` by default. */
  width?: string;
}

/**
 * A virtualised table: only the visible rows are in the DOM, so 10,000 rows scroll smoothly.
 * ARIA table semantics; arrows move between rows, Enter opens one. `onEnd` asks for the next
 * page when the last 20 rows come into view. Narrow screens scroll it sideways.
 */
export function VirtualTable<T>({
  rows,
  columns,
  label,
  onOpen,
  onEnd,
  height = 560,
  rowKey,
}: {
  rows: T[];
  columns: Column<T>[];
  label: string;
  onOpen?: (row: T) => void;
  onEnd?: () => void;
  height?: number;
  rowKey?: (row: T) => string;
}) {
  const body = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: rows.length,
    getScrollElement: () => body.current,
    estimateSize: () => 40,
    overscan: 12,
  });
  const items = v.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    if (onEnd && lastIndex >= 0 && lastIndex >= rows.length - 20) onEnd();
  }, [lastIndex, rows.length, onEnd]);
  const template = columns.map((c) => c.width ?? '1fr').join(' ');
  const move = (e: KeyboardEvent<HTMLDivElement>, i: number) => {
    const go = (j: number) => {
      if (j < 0 || j >= rows.length) return;
      v.scrollToIndex(j);
      requestAnimationFrame(() => body.current?.querySelector<HTMLElement>(`[data-index="${j}"]`)?.focus());
    };
    if (e.key === 'ArrowDown') (e.preventDefault(), go(i + 1));
    if (e.key === 'ArrowUp') (e.preventDefault(), go(i - 1));
    if (e.key === 'Enter' && onOpen) onOpen(rows[i]!);
  };
  return (
    <div className={classes.scroller}>
      <div className={classes.table} role="table" aria-label={label} aria-rowcount={rows.length + 1}>
        <div role="rowgroup">
          <div
            role="row"
            aria-rowindex={1}
            className={`${classes.row} ${classes.head}`}
            style={{ gridTemplateColumns: template }}
          >
            {columns.map((c) => (
              <span role="columnheader" key={c.key}>
                {c.label}
              </span>
            ))}
          </div>
        </div>
        <div ref={body} role="rowgroup" className={classes.body} style={{ maxHeight: height }}>
          <div style={{ height: v.getTotalSize(), position: 'relative' }}>
            {items.map((it) => {
              const row = rows[it.index]!;
              return (
                <div
                  role="row"
                  key={rowKey ? rowKey(row) : it.key}
                  data-index={it.index}
                  aria-rowindex={it.index + 2}
                  tabIndex={0}
                  className={`${classes.row} ${onOpen ? classes.open : ''}`}
                  style={{ gridTemplateColumns: template, transform: `translateY(${it.start}px)` }}
                  onClick={() => onOpen?.(row)}
                  onKeyDown={(e) => move(e, it.index)}
                >
                  {columns.map((c) => (
                    <span role="cell" key={c.key}>
                      {c.render(row)}
                    </span>
                  ))}
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
