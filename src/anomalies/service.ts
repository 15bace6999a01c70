import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import { type Principal, actorLabel } from '../auth/principal';
import { notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { findAnomaly, listAnomalies, setStatus, type AnomalyRecord } from './queries';
import type { ListAnomaliesParams } from './schemas';
import { isoOrNull, isoText } from '../db/convert';

/** Reads and status changes of anomalies (detection itself is detect.ts, run by the schedule). */
const cursor = cursorCodec('ts', 'uuid');

function toView(r: AnomalyRecord) {
  const b = r.baseline;
  return {
    id: r.id,
    project_id: r.project_id,
    measure: r.measure,
    dimension: r.dimension,
    dimension_value: r.dimension_value,
    direction: r.direction,
    expected: { low: Number(r.expected_low), median: Number(r.expected_median), high: Number(r.expected_high) },
    observed: Number(r.observed),
    score: Number(r.score),
    baseline: {
      points: b.points,
      seasonal: b.seasonal,
      from: new Date(b.from).toISOString(),
      to: new Date(b.to).toISOString(),
    },
    window: { start: isoText(r.window_start), end: isoText(r.window_end) },
    first_seen: isoText(r.first_seen),
    last_seen: isoText(r.last_seen),
    detections: Number(r.detections),
    sample_request_ids: r.sample_request_ids,
    status: r.status,
    acknowledged_at: isoOrNull(r.acknowledged_at),
    acknowledged_by: r.acknowledged_by ?? null,
    resolved_at: isoOrNull(r.resolved_at),
    resolved_by: r.resolved_by ?? null,
  };
}

export async function list(db: Knex, projectIds: string[], p: ListAnomaliesParams) {
  const after = p.cursor ? (cursor.decode(p.cursor) as [string, string]) : null;
  const rows = await listAnomalies(db, {
    projectIds,
    status: p.status,
    measure: p.measure,
    dimension: p.dimension,
    from: p.from,
    to: p.to,
    after,
    limit: p.limit,
  });
  return pageOf(rows, p.limit, cursor, (r) => [isoText(r.last_seen), r.id], toView);
}

export async function read(db: Knex, projectIds: string[], id: string) {
  const row = await findAnomaly(db, projectIds, id);
  if (!row) throw notFound('Anomaly');
  return toView(row);
}

/** Acknowledges or resolves an anomaly, audited; a resolved one stays resolved (a new detection opens a new one). */
export async function changeStatus(
  db: Knex,
  principal: Principal,
  projectIds: string[],
  id: string,
  status: 'acknowledged' | 'resolved',
) {
  return db.transaction(async (trx) => {
    const before = await findAnomaly(trx, projectIds, id).forUpdate();
    if (!before) throw notFound('Anomaly');
    if (before.status === 'resolved' || before.status === status) return toView(before);
    const after = await setStatus(trx, id, status, actorLabel(principal), new Date().toISOString());
    await recordAudit(trx, {
      orgId: principal.orgId,
      actor: principal,
      action: `anomaly.${status}`,
      resourceType: 'anomaly',
      resourceId: id,
      before: { status: before.status },
      after: { status },
    });
    return toView(after);
  });
}
