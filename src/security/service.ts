import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import { type Principal, actorLabel } from '../auth/principal';
import { badRequest, notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { FINDING_KINDS, SEVERITIES } from './detectors/types';
import { findFinding, listFindings, setStatus, summarize, type FindingRecord } from './queries';
import type { FindingView, ListFindingsParams } from './schemas';
import { isoOrNull, isoText } from '../db/convert';

/** What other features read of this one's data (they never import its queries). */
export { countNewFindings } from './queries';

/** Reads, status changes and the summary of security findings (scanning itself is scan.ts, run by the schedule). */
const cursor = cursorCodec('ts', 'uuid');
const str = (v: string | null | undefined) => v ?? null;

/**
 * A finding as the API serves it. Also applied to a row about to be inserted (findingRow: text
 * timestamps, no created_at) by the no-leak property test, so the times may be text.
 */
type FindingSource = Omit<FindingRecord, 'created_at' | 'first_seen' | 'last_seen' | 'field'> & {
  first_seen: Date | string;
  last_seen: Date | string;
  field: string;
};
export function toView(r: FindingSource): FindingView {
  return {
    id: r.id,
    project_id: r.project_id,
    kind: r.kind,
    category: r.category,
    severity: r.severity,
    detector: r.detector,
    excerpt: r.excerpt,
    source: r.source,
    // findingRow types it as text; the column's check allows only the four fields
    field: r.field as FindingView['field'],
    direction: r.direction,
    first: { request_id: str(r.request_id), trace_id: str(r.trace_id), span_id: str(r.span_id) },
    last: { request_id: str(r.last_request_id), trace_id: str(r.last_trace_id), span_id: str(r.last_span_id) },
    first_seen: isoText(r.first_seen),
    last_seen: isoText(r.last_seen),
    occurrences: Number(r.occurrences),
    status: r.status,
    status_changed_at: isoOrNull(r.status_changed_at),
    status_changed_by: str(r.status_changed_by),
  };
}

export async function list(db: Knex, projectIds: string[], p: ListFindingsParams) {
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, string]) : null;
  const rows = await listFindings(db, {
    projectIds,
    kind: p.kind,
    category: p.category,
    severity: p.severity,
    minSeverity: p.min_severity,
    status: p.status,
    source: p.source,
    requestId: p.request_id,
    traceId: p.trace_id,
    from: p.from,
    to: p.to,
    after,
    limit: p.limit,
  });
  return pageOf(rows, p.limit, cursor, (r) => [isoText(r.last_seen), r.id], toView);
}

export async function read(db: Knex, projectIds: string[], id: string) {
  const row = await findFinding(db, projectIds, id);
  if (!row) throw notFound('Security finding');
  return toView(row);
}

/** Resolves, dismisses or reopens a finding, audited as `security_finding.<status>`. */
export async function changeStatus(
  db: Knex,
  principal: Principal,
  projectIds: string[],
  id: string,
  status: 'open' | 'resolved' | 'dismissed',
) {
  return db.transaction(async (trx) => {
    const before = await findFinding(trx, projectIds, id).forUpdate();
    if (!before) throw notFound('Security finding');
    if (before.status === status) return toView(before);
    const by = actorLabel(principal);
    const after = await setStatus(trx, id, status, by, new Date().toISOString());
    const action = status === 'open' ? 'reopened' : status;
    await recordAudit(trx, {
      orgId: principal.orgId,
      actor: principal,
      action: `security_finding.${action}`,
      resourceType: 'security_finding',
      resourceId: id,
      before: { status: before.status },
      after: { status },
    });
    return toView(after);
  });
}

const DAY = 86_400_000;

/** Counts by kind, severity and status of the findings seen in a range (default: the last 30 days). */
export async function summary(
  db: Knex,
  projectIds: string[],
  q: { from?: string | undefined; to?: string | undefined },
) {
  const to = q.to ?? new Date().toISOString();
  const from = q.from ?? new Date(Date.parse(to) - 30 * DAY).toISOString();
  if (Date.parse(from) >= Date.parse(to)) throw badRequest('from must be before to', 'invalid_range');
  const { cells, top } = await summarize(db, projectIds, from, to);
  const zero = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<string, number>;
  const byKind = zero(FINDING_KINDS);
  const bySeverity = zero(SEVERITIES);
  const byStatus = zero(['open', 'resolved', 'dismissed']);
  const grid = new Map<string, number>();
  for (const c of cells) {
    byKind[c.kind]! += c.n;
    bySeverity[c.severity]! += c.n;
    byStatus[c.status]! += c.n;
    grid.set(`${c.kind}/${c.severity}`, (grid.get(`${c.kind}/${c.severity}`) ?? 0) + c.n);
  }
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    total: Object.values(byKind).reduce((a, b) => a + b, 0),
    open: byStatus.open!,
    by_kind: byKind,
    by_severity: bySeverity,
    by_status: byStatus,
    by_kind_and_severity: FINDING_KINDS.flatMap((kind) =>
      SEVERITIES.map((severity) => ({ kind, severity, count: grid.get(`${kind}/${severity}`) ?? 0 })),
    ),
    top_categories: top as never,
  };
}
