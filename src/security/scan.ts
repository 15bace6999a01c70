import type { Knex } from 'knex';
import type { Detector, Field, Found } from './detect';
import { recordFindings, type Place } from './findings';
import { takeScans, type QueueItem } from './queue';
import { isoText } from '../db/convert';

/** One unit to scan: where it is and its fields. */
interface Item {
  place: Place;
  fields: Field[];
}

/** The requests columns a scan reads, as pg returns them. */
interface RequestScanRow {
  id: string;
  org_id: string;
  project_id: string;
  created_at: Date;
  request_body: string;
  response_body: string;
}
/** The span or trace columns a scan reads (a trace's own id is its trace_id); input and output are jsonb. */
interface ObservationScanRow {
  id: string;
  project_id: string;
  org_id: string;
  trace_id: string | null;
  start_time: Date | null;
  input: unknown;
  output: unknown;
}

/** The stored text of the queued batches (rows gone since, e.g. dropped by retention, are skipped). */
async function load(trx: Knex.Transaction, queued: QueueItem[]): Promise<Item[]> {
  const items: Item[] = [];
  for (const q of queued) {
    if (q.source === 'request') {
      const { rows } = await trx.raw<{ rows: RequestScanRow[] }>(
        `select id, org_id, project_id, created_at, request_body, response_body from requests
          where id = any(?::uuid[]) and created_at >= ? and created_at < ? order by created_at, id`,
        [q.ids, q.lo, q.hi],
      );
      for (const r of rows) {
        items.push({
          place: {
            orgId: r.org_id,
            projectId: r.project_id,
            source: 'request',
            requestId: r.id,
            traceId: null,
            spanId: null,
            seen: isoText(r.created_at),
          },
          fields: [
            { name: 'request_body', direction: 'in', value: r.request_body },
            { name: 'response_body', direction: 'out', value: r.response_body },
          ],
        });
      }
      continue;
    }
    const { rows } = await trx.raw<{ rows: ObservationScanRow[] }>(
      `select x.id, x.project_id, p.org_id, ${q.source === 'span' ? 'x.trace_id' : 'x.id as trace_id'},
              x.start_time, x.input, x.output
         from unnest(?::uuid[], ?::text[]) as k(project_id, id)
         join ${q.source}s x on x.project_id = k.project_id and x.id = k.id
         join projects p on p.id = x.project_id`,
      [q.refs.map((r) => r.projectId), q.refs.map((r) => r.id)],
    );
    for (const r of rows) {
      items.push({
        place: {
          orgId: r.org_id,
          projectId: r.project_id,
          source: q.source,
          requestId: null,
          traceId: r.trace_id ?? null,
          spanId: q.source === 'span' ? r.id : null,
          seen: r.start_time ? isoText(r.start_time) : new Date().toISOString(),
        },
        fields: [
          { name: 'input', direction: 'in', value: r.input },
          { name: 'output', direction: 'out', value: r.output },
        ],
      });
    }
  }
  return items;
}

export interface ScanResult {
  scanned: number;
  detections: number;
  created: number;
  /** Whether the queue may hold more (all the batches asked for were there). */
  more: boolean;
}

/**
 * Scans queued batches in one transaction: they leave the queue only with their findings recorded,
 * so a crash mid-batch rescans them (sightings make that idempotent).
 */
export async function scanBatch(db: Knex, detector: Detector, batches: number): Promise<ScanResult> {
  return db.transaction(async (trx) => {
    const queued = await takeScans(trx, batches);
    const items = await load(trx, queued);
    const detections: { place: Place; found: Found }[] = [];
    for (const item of items)
      for (const found of await detector.scan(item.fields)) detections.push({ place: item.place, found });
    const created = await recordFindings(trx, detections);
    return { scanned: items.length, detections: detections.length, created, more: queued.length === batches };
  });
}
