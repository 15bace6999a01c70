import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface Col<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  width?: string;
}

/**
 * A virtualised table (only the visible rows are in the DOM, so 10,000 rows scroll smoothly),
 * keyboard-navigable: arrows move between rows, Enter opens one.
 */
export function Table<T>({ rows, cols, onOpen, label, height = 560, onEnd }: { rows: T[]; cols: Col<T>[]; onOpen?: (row: T) => void; label: string; height?: number; onEnd?: () => void }) {
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: () => 36, overscan: 12 });
  const items = v.getVirtualItems();
  const last = items[items.length - 1];
  if (onEnd && last && last.index >= rows.length - 20) queueMicrotask(onEnd);
  const template = cols.map((c) => c.width ?? '1fr').join(' ');
  const key = (e: KeyboardEvent<HTMLDivElement>, i: number) => {
    const go = (j: number) => {
      if (j < 0 || j >= rows.length) return;
      v.scrollToIndex(j);
      requestAnimationFrame(() => (parent.current?.querySelector(`[data-index="${j}"]`) as HTMLElement | null)?.focus());
    };
    if (e.key === 'ArrowDown') (e.preventDefault(), go(i + 1));
    if (e.key === 'ArrowUp') (e.preventDefault(), go(i - 1));
    if (e.key === 'Enter' && onOpen) onOpen(rows[i]!);
  };
  return (
    <div className="table" role="table" aria-label={label} aria-rowcount={rows.length + 1}>
      <div role="rowgroup">
        <div role="row" className="tr th" style={{ gridTemplateColumns: template }}>
          {cols.map((c) => (
            <span role="columnheader" key={c.key}>{c.label}</span>
          ))}
        </div>
      </div>
      <div ref={parent} role="rowgroup" className="tbody" style={{ maxHeight: height }}>
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {items.map((it) => {
            const row = rows[it.index]!;
            return (
              <div
                role="row" key={it.key} data-index={it.index} aria-rowindex={it.index + 2} tabIndex={0} className="tr"
                style={{ gridTemplateColumns: template, position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${it.start}px)` }}
                onClick={() => onOpen?.(row)} onKeyDown={(e) => key(e, it.index)}
              >
                {cols.map((c) => (
                  <span role="cell" key={c.key}>{c.render(row)}</span>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
