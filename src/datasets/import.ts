import { createHash } from 'node:crypto';
import type { parse as Parse } from 'csv-parse/sync';
import type { Knex } from 'knex';
import { requestWhere } from '../filters/request-filter';
import { requestFilterOf, type StoredFilter } from '../filters/stored';
import { inputText, outputText } from '../evaluators/targets';
import { badRequest } from '../http/errors';
import type { RunTarget } from '../eval-runs/schemas';
import { ITEM_ID, itemInput, type ItemInput } from './schemas';

/**
 * Items from an upload (CSV with a header row, or JSONL: one object a line) and from production
 * (requests or traces matching a filter). Upload rows that do not make an item are reported by
 * row number; the others are added.
 */
const MAX_UPLOAD_ROWS = 10_000;
const json = (v: unknown) => {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  if (!(s.startsWith('{') || s.startsWith('[') || s.startsWith('"'))) return v;
  try {
    return JSON.parse(s);
  } catch {
    return v;
  }
};

export function parseUpload(
  text: string,
  format: 'csv' | 'jsonl',
  split?: string,
): { items: ItemInput[]; errors: { row: number; error: string }[] } {
  let records: unknown[];
  if (format === 'csv') {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first upload, not at start
      const { parse } = require('csv-parse/sync') as { parse: typeof Parse };
      records = parse(text, {
        columns: true,
        skip_empty_lines: true,
        relax_column_count: true,
        bom: true,
        trim: false,
      }) as Record<string, string>[];
    } catch (err) {
      throw badRequest(`the CSV could not be read: ${(err as Error).message}`, 'invalid_upload');
    }
    // Cells holding JSON (objects, arrays, quoted strings) become JSON; metadata must be an object.
    records = (records as Record<string, string>[]).map((r) =>
      Object.fromEntries(
        Object.entries(r)
          .filter(([, v]) => v !== '')
          .map(([k, v]) => [k, k === 'id' || k === 'split' || k === 'status' ? v : json(v)]),
      ),
    );
  } else {
    records = text
      .split('\n')
      .map((line, i) => ({ line: line.trim(), i }))
      .filter((l) => l.line)
      .map(({ line }) => {
        try {
          return JSON.parse(line) as unknown;
        } catch {
          return Symbol.for('bad-json');
        }
      });
  }
  if (records.length > MAX_UPLOAD_ROWS)
    throw badRequest(`at most ${MAX_UPLOAD_ROWS} rows per upload`, 'upload_too_large');
  const items: ItemInput[] = [];
  const errors: { row: number; error: string }[] = [];
  records.forEach((r, i) => {
    const row = i + 1;
    if (r === Symbol.for('bad-json')) return errors.push({ row, error: 'not a JSON object' });
    const parsed = itemInput.safeParse(
      split && typeof r === 'object' && r !== null && !('split' in r) ? { ...r, split } : r,
    );
    if (!parsed.success)
      return errors.push({
        row,
        error: parsed.error.issues.map((x) => `${x.path.join('.') || 'row'}: ${x.message}`).join('; '),
      });
    items.push(parsed.data);
  });
  return { items, errors };
}

/** An item id naming its source, so adding the same call twice updates one item (hashed when the id does not fit). */
function sourceItemId(kind: 'request' | 'trace', id: string): string {
  const plain = `${kind}:${id}`;
  return ITEM_ID.test(plain) ? plain : `${kind}:${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;
}

/** The requests columns productionItems reads (properties: jsonb, null when none). */
interface ProductionRequestRow {
  id: string;
  model: string;
  provider: string;
  request_body: string;
  response_body: string;
  properties: Record<string, string> | null;
}

/** Dataset items from production: a request's chat input and answer, or a trace's input and output. */
export async function productionItems(
  db: Knex,
  projectId: string,
  source: RunTarget,
  sample: 'newest' | 'random',
  split?: string,
): Promise<ItemInput[]> {
  const order = sample === 'random' ? 'random()' : null;
  if (source.kind === 'requests') {
    const w = requestWhere([projectId], {
      ...requestFilterOf((source.filter ?? {}) as StoredFilter),
      from: source.from,
      to: source.to,
    });
    const { rows } = await db.raw<{ rows: ProductionRequestRow[] }>(
      `select r.id, r.model, r.provider, r.request_body, r.response_body, r.properties from requests r
        where ${w.sql} and r.request_body <> '' and not jsonb_exists(coalesce(r.properties, '{}'::jsonb), 'eval.target')
        order by ${order ?? 'r.created_at desc, r.id desc'} limit ?`,
      [...w.args, source.limit],
    );
    return rows.map((r) => {
      const [req, res] = [json(r.request_body), json(r.response_body)];
      return {
        id: sourceItemId('request', r.id),
        input:
          typeof req === 'object' && req !== null && 'messages' in req
            ? { messages: (req as { messages: unknown }).messages }
            : inputText(req),
        expected_output: outputText(res),
        metadata: { model: r.model, provider: r.provider, ...(r.properties ?? {}) },
        source_request_id: r.id,
        split: split ?? null,
      };
    });
  }
  const q = db('traces')
    .where({ project_id: projectId })
    .andWhere('start_time', '>=', source.from)
    .andWhere('start_time', '<', source.to);
  if (source.filter?.name) q.andWhere('name', source.filter.name);
  if (source.filter?.user_id) q.andWhere('user_id', source.filter.user_id);
  if (source.filter?.session_id) q.andWhere('session_id', source.filter.session_id);
  const rows = await (
    order
      ? q.orderByRaw(order)
      : q.orderBy([
          { column: 'start_time', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
  )
    .limit(source.limit)
    .select('id', 'name', 'input', 'output', 'metadata');
  return rows.map((t) => ({
    id: sourceItemId('trace', t.id),
    input: t.input ?? null,
    expected_output: t.output ?? null,
    metadata: { trace_name: t.name, ...(t.metadata ?? {}) },
    source_trace_id: t.id,
    split: split ?? null,
  }));
}
