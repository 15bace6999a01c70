import type { Knex } from 'knex';
import type { Found } from './detect';
import { severityRank } from './detectors/types';

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

const locationOf = (p: Place, f: Found) =>
  `${p.source}:${p.requestId ?? `${p.traceId ?? ''}/${p.spanId ?? ''}`}:${f.field}`;

interface Group {
  first: { place: Place; found: Found };
  fingerprints: string[];
  /** location → place, one entry per distinct place in this batch. */
  places: Map<string, Place>;
  severity: Found['severity'];
  id?: string;
}

/**
 * The row a new finding is stored as: the only place a detection becomes stored data, so what it
 * keeps of a detection (the excerpt, the first fingerprint; never the value) is decided here.
 */
export function findingRow(p: Place, f: Found, g: { severity: Found['severity']; seen: string[] }) {
  const seen = [...g.seen].sort();
  return {
    org_id: p.orgId,
    project_id: p.projectId,
    kind: f.kind,
    category: f.category,
    severity: g.severity,
    detector: f.detector,
    fingerprint: f.fingerprints[0]!,
    excerpt: f.excerpt,
    source: p.source,
    request_id: p.requestId,
    trace_id: p.traceId,
    span_id: p.spanId,
    field: f.field,
    direction: f.direction,
    last_request_id: p.requestId,
    last_trace_id: p.traceId,
    last_span_id: p.spanId,
    first_seen: seen[0]!,
    last_seen: seen.at(-1)!,
    occurrences: 0,
  };
}

/**
 * Records a batch's detections with a handful of statements whatever their number: detections of
 * the same value are grouped, matched to existing findings under any key of the ring, new findings
 * inserted, then one sighting per distinct place (occurrences count places, so a span scanned again
 * after an update does not count twice) and one update per finding. A resolved finding seen
 * somewhere new reopens (the secret leaked again); a dismissed one stays dismissed. Returns how many
 * findings were created.
 */
export async function recordFindings(
  trx: Knex.Transaction,
  detections: { place: Place; found: Found }[],
): Promise<number> {
  if (!detections.length) return 0;
  const groups = new Map<string, Group>();
  for (const d of detections) {
    const key = `${d.place.projectId}\0${d.found.kind}\0${d.found.category}\0${d.found.fingerprints[0]}`;
    let g = groups.get(key);
    if (!g)
      groups.set(
        key,
        (g = { first: d, fingerprints: d.found.fingerprints, places: new Map(), severity: d.found.severity }),
      );
    g.places.set(locationOf(d.place, d.found), d.place);
    if (severityRank(d.found.severity) > severityRank(g.severity)) g.severity = d.found.severity;
  }
  const all = [...groups.values()];
  const keyOf = (r: { project_id: string; kind: string; category: string }) =>
    `${r.project_id}\0${r.kind}\0${r.category}`;
  const match = async () => {
    const rows = await trx('security_findings')
      .whereIn('project_id', [...new Set(all.map((g) => g.first.place.projectId))])
      .whereIn(
        'fingerprint',
        all.flatMap((g) => g.fingerprints),
      )
      .select('id', 'project_id', 'kind', 'category', 'fingerprint');
    const byFp = new Map(rows.map((r) => [`${keyOf(r)}\0${r.fingerprint}`, r.id as string]));
    for (const g of all) {
      const k = keyOf({
        project_id: g.first.place.projectId,
        kind: g.first.found.kind,
        category: g.first.found.category,
      });
      g.id ??= g.fingerprints.map((fp) => byFp.get(`${k}\0${fp}`)).find(Boolean);
    }
  };
  await match();
  const fresh = all.filter((g) => !g.id);
  let created = 0;
  if (fresh.length) {
    const inserted = await trx('security_findings')
      .insert(
        fresh.map((g) =>
          findingRow(g.first.place, g.first.found, {
            severity: g.severity,
            seen: [...g.places.values()].map((p) => p.seen),
          }),
        ),
      )
      .onConflict(['project_id', 'kind', 'category', 'fingerprint'])
      .ignore()
      .returning('id');
    created = inserted.length;
    await match(); // picks up the new rows, and any a concurrent scan inserted first
  }
  // One sighting per distinct place; only the new ones count.
  const sightings = all.flatMap((g) => [...g.places.keys()].map((location) => ({ finding_id: g.id!, location })));
  const added = await trx('security_finding_sightings')
    .insert(sightings)
    .onConflict()
    .ignore()
    .returning(['finding_id', 'location']);
  const byId = new Map(all.map((g) => [g.id!, g]));
  const updates = new Map<string, { id: string; n: number; first_seen: string; last: Place; severity: string }>();
  for (const a of added as { finding_id: string; location: string }[]) {
    const g = byId.get(a.finding_id)!;
    const p = g.places.get(a.location)!;
    const u = updates.get(a.finding_id);
    if (!u) updates.set(a.finding_id, { id: a.finding_id, n: 1, first_seen: p.seen, last: p, severity: g.severity });
    else {
      u.n++;
      if (p.seen < u.first_seen) u.first_seen = p.seen;
      if (p.seen >= u.last.seen) u.last = p;
    }
  }
  if (!updates.size) return created;
  const rows = [...updates.values()]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((u) => ({
      id: u.id,
      n: u.n,
      first_seen: u.first_seen,
      last_seen: u.last.seen,
      last_request_id: u.last.requestId,
      last_trace_id: u.last.traceId,
      last_span_id: u.last.spanId,
      severity: u.severity,
    }));
  await trx.raw(
    `update security_findings f set occurrences = f.occurrences + x.n,
       first_seen = least(f.first_seen, x.first_seen), last_seen = greatest(f.last_seen, x.last_seen),
       last_request_id = case when x.last_seen >= f.last_seen then x.last_request_id else f.last_request_id end,
       last_trace_id = case when x.last_seen >= f.last_seen then x.last_trace_id else f.last_trace_id end,
       last_span_id = case when x.last_seen >= f.last_seen then x.last_span_id else f.last_span_id end,
       severity = case when array_position(array['low','medium','high','critical'], x.severity)
                            > array_position(array['low','medium','high','critical'], f.severity)
                       then x.severity else f.severity end,
       status_changed_at = case when f.status = 'resolved' then now() else f.status_changed_at end,
       status_changed_by = case when f.status = 'resolved' then 'system' else f.status_changed_by end,
       status = case when f.status = 'resolved' then 'open' else f.status end
     from json_to_recordset(?::json) as x(id uuid, n int, first_seen timestamptz, last_seen timestamptz,
                                          last_request_id uuid, last_trace_id text, last_span_id text, severity text)
     where f.id = x.id`,
    [JSON.stringify(rows)],
  );
  return created;
}
