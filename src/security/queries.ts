import type { Knex } from 'knex';
import { SEVERITIES, type Severity } from './detectors/types';
import type { FindingView } from './schemas';

/** A security_findings row as pg returns it. */
export interface FindingRecord {
  id: string;
  org_id: string;
  project_id: string;
  kind: FindingView['kind'];
  category: string;
  severity: FindingView['severity'];
  detector: string;
  fingerprint: string;
  excerpt: string;
  source: FindingView['source'];
  request_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  field: FindingView['field'];
  direction: FindingView['direction'];
  last_request_id: string | null;
  last_trace_id: string | null;
  last_span_id: string | null;
  first_seen: Date;
  last_seen: Date;
  occurrences: number;
  status: FindingView['status'];
  status_changed_at: Date | null;
  status_changed_by: string | null;
  created_at: Date;
}

/** SQL of the findings API (the scanner's writes are findings.ts and queue.ts). */
export interface ListFilter {
  projectIds: string[];
  kind?: string | undefined;
  category?: string | undefined;
  severity?: Severity | undefined;
  minSeverity?: Severity | undefined;
  status?: string | undefined;
  source?: string | undefined;
  requestId?: string | undefined;
  traceId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  after: [string, string] | null;
  limit: number;
}

export function listFindings(db: Knex, f: ListFilter) {
  const q = db<FindingRecord>('security_findings').whereIn('project_id', f.projectIds);
  for (const [col, v] of [
    ['kind', f.kind],
    ['category', f.category],
    ['severity', f.severity],
    ['status', f.status],
    ['source', f.source],
  ] as const)
    if (v) q.andWhere(col, v);
  if (f.minSeverity) q.whereIn('severity', SEVERITIES.slice(SEVERITIES.indexOf(f.minSeverity)));
  if (f.requestId) q.andWhere((w) => w.where('request_id', f.requestId!).orWhere('last_request_id', f.requestId!));
  if (f.traceId) q.andWhere((w) => w.where('trace_id', f.traceId!).orWhere('last_trace_id', f.traceId!));
  if (f.from) q.andWhere('last_seen', '>=', f.from);
  if (f.to) q.andWhere('last_seen', '<', f.to);
  if (f.after) q.andWhereRaw('(last_seen, id) < (?::timestamptz, ?::uuid)', f.after);
  return q
    .orderBy([
      { column: 'last_seen', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
}

export const findFinding = (db: Knex, projectIds: string[], id: string) =>
  db<FindingRecord>('security_findings').whereIn('project_id', projectIds).andWhere({ id }).first();

export async function setStatus(db: Knex, id: string, status: string, by: string, at: string): Promise<FindingRecord> {
  const [row] = await db('security_findings')
    .where({ id })
    .update({ status, status_changed_at: at, status_changed_by: by })
    .returning('*');
  return row;
}

/** A summary cell and a top category: count(*) and sum(occurrences) are bigint/numeric, numbers (src/db/knex.ts). */
interface SummaryCell {
  kind: string;
  severity: string;
  status: string;
  n: number;
}
interface TopCategory {
  kind: string;
  category: string;
  n: number;
  occ: number;
}

/** Counts of the findings seen in the range, by kind × severity × status, and the top categories. */
export async function summarize(db: Knex, projectIds: string[], from: string, to: string) {
  const seen = (q: Knex.QueryBuilder) =>
    q.whereIn('project_id', projectIds).andWhere('last_seen', '>=', from).andWhere('first_seen', '<', to);
  const [cells, top] = await Promise.all([
    seen(db('security_findings'))
      .select('kind', 'severity', 'status')
      .count<SummaryCell[]>('* as n')
      .groupBy('kind', 'severity', 'status'),
    seen(db('security_findings'))
      .select('kind', 'category')
      .count('* as n')
      .sum<TopCategory[]>('occurrences as occ')
      .groupBy('kind', 'category')
      .orderBy([{ column: 'n', order: 'desc' }, { column: 'category' }])
      .limit(10),
  ]);
  return {
    cells: cells.map((c) => ({ kind: c.kind, severity: c.severity, status: c.status, n: Number(c.n) })),
    top: top.map((c) => ({ kind: c.kind, category: c.category, count: Number(c.n), occurrences: Number(c.occ) })),
  };
}

/** New findings (recorded in the window) at or above a severity: the `security_finding` alert type. */
export async function countNewFindings(
  db: Knex,
  projectIds: string[],
  from: string,
  to: string,
  minSeverity: Severity,
  kind?: string,
) {
  const q = db('security_findings')
    .whereIn('project_id', projectIds)
    .andWhere('created_at', '>=', from)
    .andWhere('created_at', '<', to)
    .whereIn('severity', SEVERITIES.slice(SEVERITIES.indexOf(minSeverity)));
  if (kind) q.andWhere('kind', kind);
  const [row] = await q.count<{ n: number }[]>('* as n');
  return Number(row!.n);
}
