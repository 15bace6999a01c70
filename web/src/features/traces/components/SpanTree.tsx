import { Badge, Text } from '@mantine/core';
import type { KeyboardEvent } from 'react';
import type { Schema } from '../../../api/types';
import * as fmt from '../../../lib/format';
import classes from './SpanTree.module.css';

type Node = Schema<'SpanNode'>;
export interface Row {
  node: Node;
  depth: number;
  /** Offset and width on the waterfall, in % of the trace. */
  left: number;
  width: number;
}

/** The tree flattened in display order, with each span's place on the trace's time axis. */
export function layout(tree: Node[], traceStart: string, traceMs: number | null): Row[] {
  const t0 = Date.parse(traceStart);
  const out: { node: Node; depth: number }[] = [];
  const walk = (n: Node, depth: number) => (
    out.push({ node: n, depth }),
    n.children.forEach((c) => walk(c, depth + 1))
  );
  tree.forEach((n) => walk(n, 0));
  const end = (n: Node) => (n.start_time ? Date.parse(n.start_time) - t0 : 0) + (n.duration_ms ?? 0);
  const total = Math.max(1, traceMs ?? Math.max(1, ...out.map((r) => end(r.node))));
  return out.map(({ node, depth }) => {
    const left = node.start_time ? Math.min(100, Math.max(0, ((Date.parse(node.start_time) - t0) / total) * 100)) : 0;
    return { node, depth, left, width: Math.max(0.5, Math.min(100 - left, ((node.duration_ms ?? 0) / total) * 100)) };
  });
}

/**
 * The spans as a treeview (WAI-ARIA: one tab stop, arrows move, Home/End jump) whose rows are
 * also the waterfall: each bar sits at the span's start and is as long as the span.
 */
export function SpanTree({
  rows,
  selected,
  onSelect,
}: {
  rows: Row[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const key = (e: KeyboardEvent, i: number) => {
    const j =
      e.key === 'ArrowDown'
        ? i + 1
        : e.key === 'ArrowUp'
          ? i - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? rows.length - 1
              : -1;
    if (j < 0 || j >= rows.length) return;
    e.preventDefault();
    onSelect(rows[j]!.node.id);
    document.getElementById(`span-${j}`)?.focus();
  };
  return (
    <ul role="tree" aria-label="Spans" className={classes.tree}>
      {rows.map(({ node, depth, left, width }, i) => {
        const on = node.id === selected;
        return (
          <li
            key={node.id}
            id={`span-${i}`}
            role="treeitem"
            aria-level={depth + 1}
            aria-selected={on}
            tabIndex={on ? 0 : -1}
            className={classes.item}
            data-selected={on || undefined}
            onClick={() => onSelect(node.id)}
            onKeyDown={(e) => key(e, i)}
          >
            <span className={classes.label} style={{ paddingLeft: depth * 14 }}>
              <Text span size="sm" fw={on ? 600 : 400} truncate>
                {node.name ?? node.id}
              </Text>
              <Badge size="xs" variant="light" color="gray" radius="sm" tt="none">
                {node.span_type}
              </Badge>
            </span>
            <span className={classes.track} aria-hidden="true">
              <span
                className={classes.bar}
                data-error={node.status === 'error' || undefined}
                style={{ left: `${left}%`, width: `${width}%` }}
              />
            </span>
            <Text span size="xs" c="dimmed" ta="right">
              {fmt.ms(node.duration_ms)}
            </Text>
          </li>
        );
      })}
    </ul>
  );
}
