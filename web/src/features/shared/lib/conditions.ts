import type { Schema } from '../../../api/types';
import * as fmt from '../../../lib/format';

/**
 * A shared stats view's saved filter as people read it: one condition per query parameter
 * (`{"model": "gpt-4o", "min_cost": "0.01"}` → Model gpt-4o, Cost at least $0.01), in the order
 * the request log's filter builder lists them, the view's own options last. A parameter the page
 * does not know keeps its name, made readable.
 */
export type SharedFilter = Schema<'SharedSavedFilter'>;
export interface Condition {
  key: string;
  label: string;
  value: string;
}

const words = (v: string) => v.replace(/_usd$|_ms$/, '').replace(/_/g, ' ');
const yesNo = (v: string) => (v === 'true' ? 'yes' : v === 'false' ? 'no' : v);
const num = (v: string, f: (n: number) => string) => (Number.isFinite(Number(v)) ? f(Number(v)) : v);
/** `tier:pro` → `tier = pro` (custom properties and metadata). */
const pair = (v: string) => v.replace(/^([^:]*):/, '$1 = ');

const KNOWN: [key: string, label: string, show?: (v: string) => string][] = [
  ['from', 'From', fmt.time],
  ['to', 'To', fmt.time],
  ['model', 'Model'],
  ['provider', 'Provider'],
  ['status', 'Status'],
  ['user_id', 'User'],
  ['session_id', 'Session'],
  ['trace_id', 'Trace'],
  ['api_key_id', 'API key'],
  ['prompt', 'Prompt'],
  ['prompt_version_id', 'Prompt version'],
  ['min_cost', 'Cost at least', (v) => num(v, fmt.usd)],
  ['max_cost', 'Cost at most', (v) => num(v, fmt.usd)],
  ['min_latency_ms', 'Latency at least', (v) => num(v, fmt.ms)],
  ['max_latency_ms', 'Latency at most', (v) => num(v, fmt.ms)],
  ['cache_hit', 'Cache hit', yesNo],
  ['streamed', 'Streamed', yesNo],
  ['self_hosted', 'Self-hosted', yesNo],
  ['property', 'Custom property', pair],
  ['view', 'View'],
  ['name', 'Name'],
  ['span_type', 'Span type'],
  ['metadata', 'Metadata', pair],
  ['granularity', 'Buckets', (v) => (v === 'auto' ? 'automatic' : `by ${v}`)],
  ['tz', 'Time zone'],
  ['group_by', 'Broken down by', (v) => v.replace(/^property:/, 'property ').replace(/_/g, ' ')],
  ['top', 'Top groups'],
  ['order_by', 'Groups ranked by', words],
  ['source', 'Source', (v) => (v === 'raw' ? 'raw rows' : v)],
];
const ORDER = new Map(KNOWN.map(([k], i) => [k, i]));

/** Every condition of a saved filter; repeated parameters (properties, metadata) must all match. */
export function conditions(f: SharedFilter['filter']): Condition[] {
  const rank = (k: string) => ORDER.get(k) ?? KNOWN.length;
  return Object.entries(f)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([key, raw]) => {
      const [, label, show = (v: string) => v] = KNOWN[ORDER.get(key) ?? -1] ?? [key, words(key)];
      const values = (Array.isArray(raw) ? raw : [raw]).map(show);
      return { key, label: label.charAt(0).toUpperCase() + label.slice(1), value: values.join(' and ') };
    });
}
