import type { ReactNode } from 'react';
import type { Loaded } from '../api';

/** Loading, error and empty states, the same on every page. */
export function Status<T>({ q, empty, children }: { q: Loaded<T>; empty?: (d: T) => boolean; children: (d: T) => ReactNode }) {
  if (q.error) {
    return (
      <div role="alert" className="state error">
        <strong>Could not load this.</strong> {q.error.message} <button onClick={q.reload}>Retry</button>
      </div>
    );
  }
  if (q.loading && q.data === undefined) return <div className="state" aria-busy="true">Loading…</div>;
  if (q.data === undefined) return null;
  if (empty?.(q.data)) return <div className="state empty">Nothing here yet.</div>;
  return <>{children(q.data)}</>;
}

export const fmt = {
  usd: (v: number | null | undefined) => (v === null || v === undefined ? '—' : v < 0.01 && v > 0 ? `$${v.toFixed(6)}` : `$${v.toFixed(2)}`),
  int: (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toLocaleString('en')),
  ms: (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${Math.round(v).toLocaleString('en')} ms`),
  pct: (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}%`),
  time: (v: string | null | undefined) => (v ? new Date(v).toLocaleString() : '—'),
};

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby="page-title">
      <header className="page-head">
        <h1 id="page-title">{title}</h1>
        <div className="actions">{actions}</div>
      </header>
      {children}
    </section>
  );
}
