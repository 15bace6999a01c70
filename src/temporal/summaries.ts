import type { ScheduleSpec } from '@temporalio/client';

/**
 * Static summaries: the one line the Temporal Web UI shows for a workflow in its list and on its
 * page (`staticSummary` at start, or on a schedule's action for the runs it starts). Every
 * workflow the service starts gets one from here, so the wording is consistent and nothing
 * secret reaches Temporal's visibility store: no credentials, query strings or token-like path
 * segments of URLs, no bodies, only names the user chose and counts.
 */

const MAX_SUMMARY = 200;

const clip = (s: string) => (s.length <= MAX_SUMMARY ? s : `${s.slice(0, MAX_SUMMARY - 1)}…`);

// A path segment that looks like a token (Slack and Discord hooks carry their secret in the path):
// 16+ characters mixing digits or cases, or any run of 32+.
const TOKEN_LIKE = /^(?=.*\d|(?=.*[a-z])(?=.*[A-Z]))[A-Za-z0-9_-]{16,}$|^[A-Za-z0-9_=.-]{32,}$/;

/** `https://user:pw@hooks.example.com/x/<token>?sig=…#f` → `https://hooks.example.com/x/…`. */
export function displayUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return '(invalid url)';
  }
  const path = u.pathname
    .split('/')
    .map((seg) => (TOKEN_LIKE.test(seg) ? '…' : seg))
    .join('/');
  return `${u.protocol}//${u.host}${path === '/' ? '' : path}`;
}

/** A webhook delivery: `request.created → https://hooks.example.com/x`; a redelivery names its number. */
export function deliverySummary(d: { eventType: string; url: string; redelivery?: number }): string {
  const what = d.redelivery ? `redelivery ${d.redelivery} of ${d.eventType}` : d.eventType;
  return clip(`${what} → ${displayUrl(d.url)}`);
}

/** A recovery (POST /api/v1/webhooks/:id/recover): `recover failed, dead_lettered deliveries since <time> → <url>`. */
export function recoverySummary(r: { url: string; since: string | Date; statuses: readonly string[] }): string {
  const since = r.since instanceof Date ? r.since.toISOString() : r.since;
  return clip(`recover ${r.statuses.join(', ')} deliveries since ${since} → ${displayUrl(r.url)}`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `eval run helpfulness, toxicity: up to 1000 requests × 2 evaluators`. */
export function evalRunSummary(r: {
  evaluatorNames: string[];
  targetKind: 'requests' | 'traces';
  limit: number;
}): string {
  return clip(
    `eval run ${r.evaluatorNames.join(', ')}: ` +
      `up to ${r.limit} ${r.targetKind} × ${plural(r.evaluatorNames.length, 'evaluator')}`,
  );
}

/** `experiment baseline: 50 items × 2 repetitions, 2 evaluators`. */
export function experimentSummary(e: { name: string; items: number; repetitions: number; evaluators: number }): string {
  const reps = e.repetitions > 1 ? ` × ${e.repetitions} repetitions` : '';
  return clip(`experiment ${e.name}: ${plural(e.items, 'item')}${reps}, ${plural(e.evaluators, 'evaluator')}`);
}

/** `export requests → parquet` (with bodies when they are included). */
export function exportSummary(x: { resource: string; format: string; includeBodies: boolean }): string {
  return clip(`export ${x.resource} → ${x.format}${x.includeBodies ? ' with bodies' : ''}`);
}

/** How often a schedule fires, in words: `every 5 minutes`, `daily at 03:17 UTC`. */
function cadence(spec: ScheduleSpec): string {
  const parts: string[] = [];
  for (const i of spec.intervals ?? []) parts.push(`every ${String(i.every)}`);
  for (const c of spec.calendars ?? []) {
    const { hour, minute, ...rest } = c;
    const daily =
      typeof hour === 'number' && typeof minute === 'number' && Object.values(rest).every((v) => v === undefined);
    parts.push(
      daily ? `daily at ${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')} UTC` : 'on a calendar',
    );
  }
  return parts.join(', ') || 'on its schedule';
}

/** A run of one of the service's recurring jobs: `anomaly-detection (every 5 minutes): <what it does>`. */
export function scheduledRunSummary(def: { name: string; note: string; spec: ScheduleSpec }): string {
  const what = def.note.replace(/\s*\([^)]*\.md\)\s*$/, '');
  return clip(`${def.name} (${cadence(def.spec)}): ${what}`);
}

/** An alert rule's evaluation: `alert rule "p95 too slow" (every 1 minute)`. */
export function alertRuleSummary(rule: { name: string }, spec: ScheduleSpec): string {
  return clip(`alert rule "${rule.name}" (${cadence(spec)})`);
}
