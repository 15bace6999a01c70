import type { Knex } from 'knex';
import type { Detector, Field } from './detect';
import { recordFinding, type Place } from './findings';
import { takeScans, type ScanRef } from './queue';

/** One unit to scan: where it is and its fields. */
interface Item {
  place: Place;
  fields: Field[];
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/** The stored text of the queued refs (rows gone since, e.g. dropped by retention, are skipped). */
async function load(trx: Knex.Transaction, refs: ScanRef[]): Promise<Item[]> {
  const of = (s: ScanRef['source']) => refs.filter((r) => r.source === s);
  const items: Item[] = [];
  const reqs = of('request');
  if (reqs.length) {
    const { rows } = await trx.raw<{ rows: Record<string, unknown>[] }>(
      `select r.id, r.org_id, r.project_id, r.created_at, r.request_body, r.response_body
         from unnest(?::uuid[], ?::timestamptz[]) as k(id, at) join requests r on r.id = k.id and r.created_at = k.at`,
      [reqs.map((r) => r.ref), reqs.map((r) => r.at)],
    );
    for (const r of rows) {
      items.push({
        place: { orgId: r.org_id as string, projectId: r.project_id as string, source: 'request', requestId: r.id as string, traceId: null, spanId: null, seen: iso(r.created_at) },
        fields: [{ name: 'request_body', direction: 'in', value: r.request_body }, { name: 'response_body', direction: 'out', value: r.response_body }],
      });
    }
  }
  for (const source of ['span', 'trace'] as const) {
    const refsOf = of(source);
    if (!refsOf.length) continue;
    const { rows } = await trx.raw<{ rows: Record<string, unknown>[] }>(
      `select x.id, x.project_id, p.org_id, ${source === 'span' ? 'x.trace_id' : 'x.id as trace_id'}, x.start_time, x.input, x.output
         from unnest(?::uuid[], ?::text[]) as k(project_id, id) join ${source}s x on x.project_id = k.project_id and x.id = k.id join projects p on p.id = x.project_id`,
      [refsOf.map((r) => r.project_id), refsOf.map((r) => r.ref)],
    );
    for (const r of rows) {
      items.push({
        place: { orgId: r.org_id as string, projectId: r.project_id as string, source, requestId: null, traceId: (r.trace_id as string | null) ?? null, spanId: source === 'span' ? (r.id as string) : null, seen: r.start_time ? iso(r.start_time) : new Date().toISOString() },
        fields: [{ name: 'input', direction: 'in', value: r.input }, { name: 'output', direction: 'out', value: r.output }],
      });
    }
  }
  return items;
}

export interface ScanResult {
  scanned: number;
  detections: number;
  created: number;
  /** Whether the queue may hold more (the batch was full). */
  more: boolean;
}

/**
 * Scans one batch from the queue in one transaction: the refs leave the queue only with their
 * findings recorded, so a crash mid-batch rescans it (sightings make that idempotent).
 */
export async function scanBatch(db: Knex, detector: Detector, limit: number): Promise<ScanResult> {
  return db.transaction(async (trx) => {
    const refs = await takeScans(trx, limit);
    const items = await load(trx, refs);
    let detections = 0;
    let created = 0;
    for (const item of items) {
      for (const f of await detector.scan(item.fields)) {
        detections++;
        if ((await recordFinding(trx, item.place, f)).created) created++;
      }
    }
    return { scanned: items.length, detections, created, more: refs.length === limit };
  });
}
