import type { QueryOf } from '../../../api/types';

/**
 * The request log's filter builder, as data: rows of field / operator / value, mapped onto the
 * list route's query parameters (the analytics filter language, docs/analytics.md) and back.
 * The URL carries the parameters under the API's own names (`/requests?model=gpt-4o&min_cost=0.01`),
 * so a shared link reads like the API call it makes. Several custom properties share one
 * `property` parameter, separated by `;` (a `;` or `\` inside a value is escaped with `\`), since
 * the router keeps one value per key.
 */
export type FilterField =
  | 'model'
  | 'provider'
  | 'status'
  | 'user_id'
  | 'session_id'
  | 'trace_id'
  | 'api_key_id'
  | 'prompt'
  | 'prompt_version_id'
  | 'cost'
  | 'latency'
  | 'cache_hit'
  | 'streamed'
  | 'self_hosted'
  | 'property';
export type FilterOp = 'is' | 'gte' | 'lte';
export interface FilterRow {
  field: FilterField;
  op: FilterOp;
  value: string;
  /** A custom property's name (field `property`). */
  name?: string;
}

type Kind = 'text' | 'status' | 'uuid' | 'prompt' | 'number' | 'bool' | 'property';
interface FieldDef {
  label: string;
  kind: Kind;
  ops: readonly FilterOp[];
  hint: string;
  unit?: string;
}

export const FIELDS: Record<FilterField, FieldDef> = {
  model: { label: 'Model', kind: 'text', ops: ['is'], hint: 'gpt-4o-mini' },
  provider: { label: 'Provider', kind: 'text', ops: ['is'], hint: 'openai' },
  status: { label: 'Status', kind: 'status', ops: ['is'], hint: '200 or a class: 4xx' },
  user_id: { label: 'User', kind: 'text', ops: ['is'], hint: 'user id' },
  session_id: { label: 'Session', kind: 'text', ops: ['is'], hint: 'session id' },
  trace_id: { label: 'Trace', kind: 'text', ops: ['is'], hint: 'trace id' },
  api_key_id: { label: 'API key', kind: 'uuid', ops: ['is'], hint: 'key id (uuid)' },
  prompt: { label: 'Prompt', kind: 'prompt', ops: ['is'], hint: 'name or name@3' },
  prompt_version_id: { label: 'Prompt version', kind: 'uuid', ops: ['is'], hint: 'version id (uuid)' },
  cost: { label: 'Cost', kind: 'number', ops: ['gte', 'lte'], hint: '0.01', unit: 'USD' },
  latency: { label: 'Latency', kind: 'number', ops: ['gte', 'lte'], hint: '500', unit: 'ms' },
  cache_hit: { label: 'Cache hit', kind: 'bool', ops: ['is'], hint: '' },
  streamed: { label: 'Streamed', kind: 'bool', ops: ['is'], hint: '' },
  self_hosted: { label: 'Self-hosted', kind: 'bool', ops: ['is'], hint: '' },
  property: { label: 'Custom property', kind: 'property', ops: ['is'], hint: 'value' },
};
export const FIELD_ORDER = Object.keys(FIELDS) as FilterField[];
export const OP_LABELS: Record<FilterOp, string> = { is: 'is', gte: 'at least', lte: 'at most' };

/** The URL's filter parameters: the API's names, every value a string. */
export const SEARCH_KEYS = [
  'model',
  'provider',
  'status',
  'user_id',
  'session_id',
  'trace_id',
  'api_key_id',
  'prompt',
  'prompt_version_id',
  'min_cost',
  'max_cost',
  'min_latency_ms',
  'max_latency_ms',
  'cache_hit',
  'streamed',
  'self_hosted',
  'property',
] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];
export type FilterSearch = Partial<Record<SearchKey, string>>;

const RANGE_PARAMS = { cost: ['min_cost', 'max_cost'], latency: ['min_latency_ms', 'max_latency_ms'] } as const;
const PROPERTY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why a row cannot be applied, or null. The same checks as the API, so a bad value is caught before the call. */
export function rowError(row: FilterRow): string | null {
  const def = FIELDS[row.field];
  const v = row.value.trim();
  if (!def.ops.includes(row.op)) return `${def.label} cannot be “${OP_LABELS[row.op]}”`;
  if (def.kind === 'property' && !PROPERTY_NAME.test((row.name ?? '').trim()))
    return 'A property name: letters, digits, _ . - (up to 64)';
  if (!v) return 'Enter a value';
  switch (def.kind) {
    case 'status':
      return /^([1-5]\d\d|[1-5]xx)$/.test(v) ? null : 'A status like 200 or a class like 4xx';
    case 'uuid':
      return UUID.test(v) ? null : 'An id (uuid)';
    case 'prompt':
      return /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,127}(@[1-9]\d{0,8})?$/.test(v) ? null : 'A prompt name, or name@version';
    case 'number':
      return /^\d+(\.\d+)?$/.test(v) && Number.isFinite(Number(v)) ? null : 'A number, 0 or more';
    case 'bool':
      return v === 'true' || v === 'false' ? null : 'Yes or no';
    default:
      return v.length <= 500 ? null : 'At most 500 characters';
  }
}

/**
 * Rows → URL parameters. Rows with an error are left out and reported by index; a later row
 * for the same parameter wins, except custom properties, which add up (all must match).
 */
export function rowsToSearch(rows: FilterRow[]): { search: FilterSearch; errors: Record<number, string> } {
  const search: FilterSearch = {};
  const errors: Record<number, string> = {};
  const properties: string[] = [];
  rows.forEach((row, i) => {
    const err = rowError(row);
    if (err) return void (errors[i] = err);
    const v = row.value.trim();
    if (row.field === 'property') properties.push(`${(row.name ?? '').trim()}:${v.replace(/[\\;]/g, (c) => `\\${c}`)}`);
    else if (row.field === 'cost' || row.field === 'latency')
      search[RANGE_PARAMS[row.field][row.op === 'gte' ? 0 : 1]] = v;
    else search[row.field] = v;
  });
  if (properties.length) search.property = properties.join(';');
  return { search, errors };
}

/** URL parameters → rows (for the builder to edit what the URL says). */
export function searchToRows(search: FilterSearch): FilterRow[] {
  const rows: FilterRow[] = [];
  for (const field of FIELD_ORDER) {
    if (field === 'property') {
      for (const pair of splitProperties(search.property)) {
        const at = pair.indexOf(':');
        rows.push({ field, op: 'is', name: pair.slice(0, at), value: pair.slice(at + 1) });
      }
    } else if (field === 'cost' || field === 'latency') {
      const [min, max] = RANGE_PARAMS[field];
      if (search[min] !== undefined) rows.push({ field, op: 'gte', value: search[min] });
      if (search[max] !== undefined) rows.push({ field, op: 'lte', value: search[max] });
    } else if (search[field] !== undefined) rows.push({ field, op: 'is', value: search[field] });
  }
  return rows;
}

/** The `property` parameter's `<name>:<value>` pairs, unescaped. */
export function splitProperties(p: string | undefined): string[] {
  if (!p) return [];
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) cur += p[++i];
    else if (c === ';') (out.push(cur), (cur = ''));
    else cur += c;
  }
  out.push(cur);
  return out.filter((s) => PROPERTY_NAME.test(s.slice(0, s.indexOf(':'))));
}

type ApiQuery = Omit<QueryOf<'/api/v1/requests'>, 'cursor' | 'limit' | 'project_id' | 'include_bodies'>;
const bool = (v: string | undefined) => (v === 'true' || v === 'false' ? v : undefined);
const num = (v: string | undefined) =>
  v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;

/** URL parameters (with the date window and a saved filter) → the list route's query, typed by the API. */
export function searchToQuery(
  search: FilterSearch & { saved_filter_id?: string },
  window: { from?: string; to?: string } = {},
): ApiQuery {
  const props = splitProperties(search.property);
  const q: ApiQuery = {
    from: window.from,
    to: window.to,
    saved_filter_id: search.saved_filter_id,
    model: search.model,
    provider: search.provider,
    status: search.status,
    user_id: search.user_id,
    session_id: search.session_id,
    trace_id: search.trace_id,
    api_key_id: search.api_key_id,
    prompt: search.prompt,
    prompt_version_id: search.prompt_version_id,
    min_cost: num(search.min_cost),
    max_cost: num(search.max_cost),
    min_latency_ms: num(search.min_latency_ms),
    max_latency_ms: num(search.max_latency_ms),
    cache_hit: bool(search.cache_hit),
    streamed: bool(search.streamed),
    self_hosted: bool(search.self_hosted),
    property: props.length ? props : undefined,
  };
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as ApiQuery;
}

/** Date range presets; `custom` reads `from` / `to` from the URL. */
export const RANGES = ['1h', '24h', '7d', '30d', 'custom'] as const;
export type Range = (typeof RANGES)[number];
export const RANGE_LABELS: Record<Range | 'all', string> = {
  all: 'All time',
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  custom: 'Custom',
};
const HOURS: Record<Exclude<Range, 'custom'>, number> = { '1h': 1, '24h': 24, '7d': 168, '30d': 720 };

/** The window a range stands for at `now`: presets are open-ended (new calls keep arriving). */
export function rangeWindow(
  range: Range | undefined,
  custom: { from?: string; to?: string },
  now: number,
): { from?: string; to?: string } {
  if (!range) return {};
  if (range === 'custom')
    return { ...(custom.from ? { from: custom.from } : {}), ...(custom.to ? { to: custom.to } : {}) };
  return { from: new Date(now - HOURS[range] * 3600_000).toISOString() };
}
