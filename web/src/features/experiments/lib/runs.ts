import type { Schema } from '../../../api/types';

export type Run = Schema<'ExperimentItem'>;

/** A run's identity in the list: its item and repetition. */
export const runKey = (r: Run) => `${r.item_id}/${r.repetition}`;

const score = (v: number | null) => (v === null ? '—' : String(Math.round(v * 1000) / 1000));

/** A run's scores in a line: `exact 1 · relevance 0.667`, or a dash when it has none. */
export const scoresText = (r: Run) =>
  Object.entries(r.scores)
    .map(([n, v]) => `${n} ${score(v)}`)
    .join(' · ') || '—';
