import type { Knex } from 'knex';
import type { Found } from './detect';

/** Where a detection was seen: a request, or a span or trace of a trace. */
export interface Place {
  orgId: string;
  projectId: string;
  source: 'request' | 'span' | 'trace';
  requestId: string | null;
  traceId: string | null;
  spanId: string | null;
  /** When the call happened (a request's created_at; a span's start or write time). */
  seen: string;
}

const locationOf = (p: Place, f: Found) => `${p.source}:${p.requestId ?? `${p.traceId ?? ''}/${p.spanId ?? ''}`}:${f.field}`;

/**
 * Records one detection: the finding with this value (matched under any key of the ring) gains a
 * sighting — one occurrence per distinct place, so a span scanned again after an update does not
 * count twice — or a new finding is opened. A resolved finding seen again somewhere new reopens
 * (the secret leaked again); a dismissed one stays dismissed. Returns whether a finding was created.
 */
export async function recordFinding(trx: Knex.Transaction, p: Place, f: Found): Promise<{ id: string; created: boolean }> {
  const where = { project_id: p.projectId, kind: f.kind, category: f.category };
  let existing = await trx('security_findings').where(where).whereIn('fingerprint', f.fingerprints).first('id').forUpdate();
  let created = false;
  if (!existing) {
    const [row] = await trx('security_findings')
      .insert({
        org_id: p.orgId, project_id: p.projectId, kind: f.kind, category: f.category, severity: f.severity, detector: f.detector, fingerprint: f.fingerprints[0],
        excerpt: f.excerpt, source: p.source, request_id: p.requestId, trace_id: p.traceId, span_id: p.spanId, field: f.field, direction: f.direction,
        last_request_id: p.requestId, last_trace_id: p.traceId, last_span_id: p.spanId, first_seen: p.seen, last_seen: p.seen,
      })
      .onConflict(['project_id', 'kind', 'category', 'fingerprint'])
      .ignore()
      .returning('id');
    if (row) {
      await trx('security_finding_sightings').insert({ finding_id: row.id, location: locationOf(p, f) });
      return { id: row.id, created: true };
    }
    existing = await trx('security_findings').where(where).whereIn('fingerprint', f.fingerprints).first('id').forUpdate();
    created = false;
  }
  const id = existing!.id as string;
  const fresh = await trx('security_finding_sightings').insert({ finding_id: id, location: locationOf(p, f) }).onConflict().ignore().returning('finding_id');
  if (!fresh.length) return { id, created };
  await trx.raw(
    `update security_findings set occurrences = occurrences + 1,
       first_seen = least(first_seen, ?), last_seen = greatest(last_seen, ?),
       last_request_id = case when ? >= last_seen then ? else last_request_id end,
       last_trace_id = case when ? >= last_seen then ? else last_trace_id end,
       last_span_id = case when ? >= last_seen then ? else last_span_id end,
       severity = case when array_position(array['low','medium','high','critical'], ?) > array_position(array['low','medium','high','critical'], severity) then ? else severity end,
       status_changed_at = case when status = 'resolved' then now() else status_changed_at end,
       status_changed_by = case when status = 'resolved' then 'system' else status_changed_by end,
       status = case when status = 'resolved' then 'open' else status end
     where id = ?`,
    [p.seen, p.seen, p.seen, p.requestId, p.seen, p.traceId, p.seen, p.spanId, f.severity, f.severity, id],
  );
  return { id, created };
}
