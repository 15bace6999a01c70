import { Text } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';
import { short } from '../../datasets/lib/values';
import { type Run, runKey, scoresText } from '../lib/runs';
import classes from './ItemRunCards.module.css';

const GAP = 8;

function Field({ label, wide, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? classes.wide : undefined}>
      <Text component="dt" size="xs" c="dimmed" fw={600}>
        {label}
      </Text>
      <Text component="dd" size="sm" className={wide ? classes.clamp : undefined}>
        {children}
      </Text>
    </div>
  );
}

/** One run as a card: item and run (the button that opens it), status, output or error, scores, latency, cost. */
function RunCard({ r }: { r: Run }) {
  return (
    <>
      <div className={classes.top}>
        <button type="button" className={classes.open}>
          {r.item_id} <span className={classes.run}>· run #{r.repetition + 1}</span>
        </button>
        <StatusBadge value={r.status} />
        <IconChevronRight size={16} className={classes.chevron} aria-hidden />
      </div>
      <dl className={classes.fields}>
        {r.error ? (
          <Field label="Error" wide>
            <Text span inherit c="var(--mantine-color-error)">
              {r.error}
            </Text>
          </Field>
        ) : (
          <Field label="Output" wide>
            {short(r.output)}
          </Field>
        )}
        <Field label="Scores">{scoresText(r)}</Field>
        <Field label="Latency">{fmt.ms(r.latency_ms)}</Field>
        <Field label="Cost">{fmt.usd(r.cost_usd)}</Field>
      </dl>
    </>
  );
}

/**
 * The item runs on a phone: a virtualised list of cards of their own height (measured) that
 * scrolls with the page (a box scrolling inside a phone's page traps the thumb). A tap on a card or
 * Enter on its name opens the run; arrows move between cards; `onEnd` asks for the next page when
 * the last 20 come into view, as the table does.
 */
export function ItemRunCards({
  rows,
  label,
  onOpen,
  onEnd,
}: {
  rows: Run[];
  label: string;
  onOpen: (r: Run) => void;
  onEnd: () => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  // Where the list starts on the page; it moves when what is above it changes height.
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const measure = () => setTop((list.current?.getBoundingClientRect().top ?? 0) + window.scrollY);
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(document.body);
    return () => watch.disconnect();
  }, []);
  const v = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => 124,
    getItemKey: (i) => runKey(rows[i]!),
    scrollMargin: top,
    gap: GAP,
    overscan: 4,
  });
  const items = v.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    if (lastIndex >= 0 && lastIndex >= rows.length - 20) onEnd();
  }, [lastIndex, rows.length, onEnd]);
  const move = (e: KeyboardEvent<HTMLLIElement>, i: number) => {
    const j = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : -1;
    if (j < 0 || j >= rows.length) return;
    e.preventDefault();
    v.scrollToIndex(j);
    const button = () => list.current?.querySelector<HTMLElement>(`[data-index="${j}"] button`);
    requestAnimationFrame(() => button()?.focus());
  };
  return (
    <ul ref={list} className={classes.list} aria-label={label} style={{ height: v.getTotalSize() }}>
      {items.map((it) => {
        const r = rows[it.index]!;
        return (
          <li
            key={it.key}
            ref={v.measureElement}
            data-index={it.index}
            aria-setsize={rows.length}
            aria-posinset={it.index + 1}
            className={classes.card}
            style={{ transform: `translateY(${it.start - top}px)` }}
            onClick={() => onOpen(r)}
            onKeyDown={(e) => move(e, it.index)}
          >
            <RunCard r={r} />
          </li>
        );
      })}
    </ul>
  );
}
