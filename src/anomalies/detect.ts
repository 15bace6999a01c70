import type { Knex } from 'knex';
import type { AnalyticsStore } from '../analytics/store';
import type { BaselineHour, WindowCell } from '../analytics/anomaly-inputs';
import { judge, MEASURES, MIN_POINT_CALLS, type Measure, type Point } from './detector';
import { activeProjects, resolveQuiet, upsertAnomaly } from './queries';
import { isoMs } from '../db/convert';

/**
 * One detection run (the `anomaly-detection` schedule, every 5 minutes): for every project with
 * traffic in the last day, the last 60 minutes of each measure of the project, its models and its
 * busiest end users are judged against the hourly rollups of the trailing 7 days. An anomaly not
 * detected again for an hour resolves itself.
 */
const H = 3_600_000;
const D = 24 * H;
const WINDOW_MS = H;
const BASELINE_DAYS = 7;
const QUIET_MS = H;

/** The value of a measure in one cell (window or baseline hour); null when it cannot be computed. */
function valueOf(
  m: Measure,
  c: { requests: number; errors: number; cost: number; tokens: number; p95: number | null },
  minCalls: number,
): number | null {
  if (m === 'requests') return c.requests;
  if (m === 'cost') return c.cost;
  if (c.requests < minCalls) return null;
  if (m === 'error_rate') return c.errors / c.requests;
  if (m === 'tokens_per_request') return c.tokens / c.requests;
  return c.p95;
}

/**
 * Baseline points of one (dimension, value): every hour from its first hour with traffic (zero
 * hours count for volume and cost; an hour before the first would drag the median to zero).
 */
function pointsOf(m: Measure, hours: BaselineHour[], baselineStart: number, windowStart: number): Point[] {
  const byHour = new Map(hours.map((h) => [h.bucket, h]));
  const first = Math.min(...hours.map((h) => h.bucket));
  const out: Point[] = [];
  for (let b = Math.max(first, baselineStart); b < windowStart; b += H) {
    const h = byHour.get(b);
    const calls = h?.requests ?? 0;
    out.push({
      hourOfDay: new Date(b).getUTCHours(),
      calls,
      value: h ? valueOf(m, h, MIN_POINT_CALLS) : m === 'requests' || m === 'cost' ? 0 : null,
    });
  }
  return out;
}

export interface DetectionDeps {
  db: Knex;
  analytics: AnalyticsStore;
}

export async function detectAnomalies(
  deps: DetectionDeps,
  nowMs: number,
): Promise<{ projects: number; detected: number; resolved: number }> {
  const windowStart = nowMs - WINDOW_MS;
  // Whole hours of baseline, ending at the hour the window starts in.
  const baseEnd = Math.floor(windowStart / H) * H;
  const baseStart = baseEnd - BASELINE_DAYS * D;
  // The hour of day the window mostly covers, for the seasonal comparison.
  const hourOfDay = new Date(Math.round(windowStart / H) * H).getUTCHours();
  let detected = 0;
  let resolved = 0;
  const projects = await activeProjects(deps.db, isoMs(nowMs - D));
  for (const p of projects) {
    const inputs = await deps.analytics.anomalyInputs(p.id, isoMs(windowStart), isoMs(nowMs), isoMs(baseStart));
    const groups = new Map<
      string,
      { dimension: WindowCell['dimension']; value: string; window: WindowCell | null; hours: BaselineHour[] }
    >();
    const keyOf = (d: string, v: string) => `${d}\u0000${v}`;
    for (const h of inputs.baseline) {
      const g = groups.get(keyOf(h.dimension, h.value)) ?? {
        dimension: h.dimension,
        value: h.value,
        window: null,
        hours: [],
      };
      g.hours.push(h);
      groups.set(keyOf(h.dimension, h.value), g);
    }
    for (const w of inputs.window) {
      const g = groups.get(keyOf(w.dimension, w.value));
      if (g) g.window = w;
    }
    for (const g of groups.values()) {
      // Users are judged only when busy in the window (their baseline was read for that reason).
      if (g.dimension === 'user' && !g.window) continue;
      const w = g.window ?? {
        dimension: g.dimension,
        value: g.value,
        requests: 0,
        errors: 0,
        cost: 0,
        tokens: 0,
        p95: null,
      };
      for (const m of MEASURES) {
        if (m === 'latency_p95' && g.dimension === 'user') continue;
        const verdict = judge(m, valueOf(m, w, 1), w.requests, pointsOf(m, g.hours, baseStart, baseEnd), hourOfDay);
        if (!verdict) continue;
        const samples = await deps.analytics.anomalySamples(
          p.id,
          isoMs(windowStart),
          isoMs(nowMs),
          m,
          g.dimension,
          g.value,
        );
        await upsertAnomaly(
          deps.db,
          {
            org_id: p.org_id,
            project_id: p.id,
            measure: m,
            dimension: g.dimension,
            dimension_value: g.value,
            direction: verdict.direction,
            expected_low: verdict.low,
            expected_median: verdict.median,
            expected_high: verdict.high,
            observed: valueOf(m, w, 1)!,
            score: verdict.score,
            baseline: {
              points: verdict.points,
              seasonal: verdict.seasonal,
              from: isoMs(baseStart),
              to: isoMs(baseEnd),
            },
            window_start: isoMs(windowStart),
            window_end: isoMs(nowMs),
            sample_request_ids: samples,
          },
          isoMs(nowMs),
        );
        detected++;
      }
    }
  }
  resolved += await resolveQuiet(deps.db, isoMs(nowMs - QUIET_MS), isoMs(nowMs));
  return { projects: projects.length, detected, resolved };
}
