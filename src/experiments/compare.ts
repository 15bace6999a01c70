import type { Knex } from 'knex';
import { notFound } from '../http/errors';
import { type ScoreShape, shapesByName, studentT, wilson } from './intervals';
import * as q from './queries';

// simple-statistics ships CommonJS next to its ESM build, typed as ESM only: required with the ESM types.
type Stats = typeof import('simple-statistics', { with: { 'resolution-mode': 'import' } });
// Required on first use: heap that a process never comparing experiments need not hold.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS build, ESM types
const stats = () => require('simple-statistics') as Stats;
const mean = (vs: number[]) => stats().mean(vs);
const quantile = (vs: number[], p: number) => stats().quantile(vs, p);
const sampleStandardDeviation = (vs: number[]) => stats().sampleStandardDeviation(vs);

/**
 * GET /experiments/compare: the experiments side by side per dataset item, their aggregates with
 * 95 % confidence intervals, the deltas against the first (the baseline), and the items whose
 * score fell. An item's score is the mean over its repetitions; an experiment's mean score is the
 * mean over items, with a 95 % interval (intervals.ts): Student's t within the score configs' range
 * (null below 2 items), or Wilson's for a boolean score.
 */
type ItemScores = Map<string, Record<string, number>>;
const r6 = (v: number) => Math.round(v * 1e6) / 1e6;

function perItem(runs: q.ItemRunRecord[], scores: Map<string, Record<string, number | null>>): ItemScores {
  const sums = new Map<string, Record<string, number[]>>();
  for (const run of runs) {
    const s = scores.get(`${run.item_id}#${run.repetition}`) ?? {};
    const cell = sums.get(run.item_id) ?? {};
    for (const [name, v] of Object.entries(s)) if (v !== null) (cell[name] ??= []).push(v);
    sums.set(run.item_id, cell);
  }
  return new Map(
    [...sums].map(([item, byName]) => [
      item,
      Object.fromEntries(Object.entries(byName).map(([n, vs]) => [n, mean(vs)])),
    ]),
  );
}

const OPEN: ScoreShape = { boolean: false, low: null, high: null };

function aggregate(runs: q.ItemRunRecord[], items: ItemScores, shapes: Map<string, ScoreShape>) {
  const names = [...new Set([...items.values()].flatMap((s) => Object.keys(s)))].sort();
  const latencies = runs
    .map((r) => r.latency_ms)
    .filter((v) => v !== null)
    .map(Number);
  return {
    items: items.size,
    scores: names.map((name) => {
      const vs = [...items.values()].map((s) => s[name]).filter((v): v is number => v !== undefined);
      const m = mean(vs);
      const shape = shapes.get(name) ?? OPEN;
      const ci = shape.boolean
        ? wilson(m, vs.length)
        : studentT(m, vs.length >= 2 ? sampleStandardDeviation(vs) : 0, vs.length, shape.low, shape.high);
      return {
        name,
        mean: r6(m),
        ci_low: ci.low === null ? null : r6(ci.low),
        ci_high: ci.high === null ? null : r6(ci.high),
        n: vs.length,
        interval: ci.kind,
      };
    }),
    cost_usd: r6(runs.reduce((a, r) => a + Number(r.cost_usd ?? 0), 0)),
    latency_p50_ms: latencies.length ? r6(quantile(latencies, 0.5)) : null,
    latency_p95_ms: latencies.length ? r6(quantile(latencies, 0.95)) : null,
    errors: runs.filter((r) => r.status === 'error').length,
  };
}

export async function compare(db: Knex, projectIds: string[], ids: string[], threshold: number) {
  const exps = await Promise.all(
    ids.map(
      async (id) =>
        (await q.findExperiment(db, projectIds, id.toLowerCase())) ?? Promise.reject(notFound('Experiment')),
    ),
  );
  const data = await Promise.all(
    exps.map(async (e) => {
      const runs = await q.itemRunsOf(db, e.id);
      const [scores, shapes] = await Promise.all([q.itemScores(db, e.id), q.scoreShapeRows(db, e.id)]);
      const items = perItem(runs, scores);
      return { e, runs, items, agg: aggregate(runs, items, shapesByName(shapes)) };
    }),
  );
  const base = data[0]!;
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : r6(a - b));
  const experiments = data.map((d, i) => ({
    id: d.e.id,
    name: d.e.name,
    aggregate: d.agg,
    delta:
      i === 0
        ? null
        : {
            scores: d.agg.scores.map((s) => ({
              name: s.name,
              delta: diff(s.mean, base.agg.scores.find((b) => b.name === s.name)?.mean ?? null),
            })),
            cost_usd: r6(d.agg.cost_usd - base.agg.cost_usd),
            latency_p50_ms: diff(d.agg.latency_p50_ms, base.agg.latency_p50_ms),
            latency_p95_ms: diff(d.agg.latency_p95_ms, base.agg.latency_p95_ms),
            errors: d.agg.errors - base.agg.errors,
          },
  }));
  const itemIds = [...new Set(data.flatMap((d) => d.runs.map((r) => r.item_id)))].sort();
  const items = itemIds.map((itemId) => ({
    item_id: itemId,
    runs: Object.fromEntries(
      data.map((d) => [
        d.e.id,
        {
          outputs: d.runs.filter((r) => r.item_id === itemId).map((r) => r.output ?? null),
          scores: d.items.get(itemId) ?? {},
        },
      ]),
    ),
  }));
  const regressions = data.slice(1).flatMap((d) =>
    itemIds.flatMap((itemId) =>
      Object.entries(d.items.get(itemId) ?? {}).flatMap(([name, value]) => {
        const was = base.items.get(itemId)?.[name];
        return was !== undefined && value - was < -threshold
          ? [
              {
                item_id: itemId,
                experiment_id: d.e.id,
                name,
                baseline: r6(was),
                value: r6(value),
                delta: r6(value - was),
              },
            ]
          : [];
      }),
    ),
  );
  return { baseline: base.e.id, experiments, items, regressions };
}
