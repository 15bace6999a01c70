import type { Knex } from 'knex';
import { z } from 'zod';
import { badRequest } from '../http/errors';
import { uuidSchema } from '../http/ids';
import { boolQuery, isoDateTime } from '../http/schemas';

/**
 * The one filter language of the request log: /requests, /stats, /users, saved filters and
 * exports read the same query parameters and build the same SQL (docs/analytics.md).
 */
const text = (max: number) => z.string().trim().min(1).max(max);
const num = z.coerce.number().finite().min(0);

/** `name:value` (repeatable; all must match). Names as in x-service-property-<name>, case-insensitive. */
const propertyPair = z
  .string()
  .max(330)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:/, 'a custom property filter is <name>:<value>')
  .transform((s) => {
    const at = s.indexOf(':');
    return { name: s.slice(0, at).toLowerCase(), value: s.slice(at + 1) };
  });

export const requestFilterShape = {
  project_id: uuidSchema.optional(),
  from: isoDateTime.optional(),
  to: isoDateTime.optional(),
  provider: text(50).optional(),
  model: text(500).optional(),
  /** An exact status (200) or a class (2xx, 4xx, 5xx). */
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx)$/, 'an HTTP status like 200 or a class like 4xx')
    .optional(),
  user_id: text(256).optional(),
  session_id: text(256).optional(),
  api_key_id: uuidSchema.optional(),
  trace_id: text(128).optional(),
  /** `<name>` (every version) or `<name>@<version>`. */
  prompt: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,127}(@[1-9]\d{0,8})?$/, 'a prompt name, or <name>@<version>')
    .optional(),
  prompt_version_id: uuidSchema.optional(),
  cache_hit: boolQuery.optional(),
  streamed: boolQuery.optional(),
  self_hosted: boolQuery.optional(),
  min_cost: num.optional(),
  max_cost: num.optional(),
  min_latency_ms: num.optional(),
  max_latency_ms: num.optional(),
  property: z
    .union([propertyPair, z.array(propertyPair).max(20)])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional()
    .meta({
      description: 'Custom property `<name>:<value>` (x-service-property-<name>); repeat for several, all must match.',
    }),
};
export type RequestFilter = z.output<ReturnType<typeof z.object<typeof requestFilterShape>>>;

/** Cross-field checks every user of the filter needs (ranges that can match nothing are a caller error). */
export function checkFilter(f: RequestFilter): void {
  if (f.from && f.to && Date.parse(f.from) >= Date.parse(f.to))
    throw badRequest('from must be before to', 'invalid_range');
  if (f.min_cost !== undefined && f.max_cost !== undefined && f.min_cost > f.max_cost)
    throw badRequest('min_cost must not exceed max_cost', 'invalid_range');
  if (f.min_latency_ms !== undefined && f.max_latency_ms !== undefined && f.min_latency_ms > f.max_latency_ms)
    throw badRequest('min_latency_ms must not exceed max_latency_ms', 'invalid_range');
}

export interface SqlWhere {
  sql: string;
  args: Knex.RawBinding[];
}

/** The WHERE clause over `requests` (alias `r`) of a filter, for the projects in scope. */
export function requestWhere(projectIds: string[], f: RequestFilter, opts: { projectExpr?: string } = {}): SqlWhere {
  // One project as an equality: the planner can then walk (project_id, created_at, id) in order
  // for a keyset page instead of collecting every older row of an `any(array)` and sorting.
  // `projectExpr`: the project comes from the caller's SQL (a lateral join over the projects).
  const w: string[] = [
    opts.projectExpr
      ? `r.project_id = ${opts.projectExpr}`
      : projectIds.length === 1
        ? 'r.project_id = ?::uuid'
        : 'r.project_id = any(?::uuid[])',
  ];
  const a: Knex.RawBinding[] = opts.projectExpr ? [] : [projectIds.length === 1 ? projectIds[0]! : projectIds];
  const eq = (col: string, v: unknown) => v !== undefined && (w.push(`r.${col} = ?`), a.push(v as Knex.RawBinding));
  if (f.from) {
    w.push('r.created_at >= ?');
    a.push(f.from);
  }
  if (f.to) {
    w.push('r.created_at < ?');
    a.push(f.to);
  }
  eq('provider', f.provider);
  eq('model', f.model);
  if (f.status?.endsWith('xx')) {
    const base = Number(f.status[0]) * 100;
    w.push('r.status_code >= ? and r.status_code < ?');
    a.push(base, base + 100);
  } else if (f.status) eq('status_code', Number(f.status));
  eq('user_id', f.user_id);
  eq('session_id', f.session_id);
  eq('api_key_id', f.api_key_id);
  eq('trace_id', f.trace_id);
  eq('prompt_version_id', f.prompt_version_id);
  eq('cache_hit', f.cache_hit);
  eq('streamed', f.streamed);
  eq('self_hosted', f.self_hosted);
  if (f.prompt) {
    const [name, version] = f.prompt.split('@');
    w.push(`r.prompt_version_id in (select pv.id from prompt_versions pv join prompts p on p.id = pv.prompt_id
             where p.project_id = any(?::uuid[]) and p.name = ?${version ? ' and pv.version = ?' : ''})`);
    a.push(projectIds, name!, ...(version ? [Number(version)] : []));
  }
  if (f.min_cost !== undefined) {
    w.push('r.cost_usd >= ?');
    a.push(f.min_cost);
  }
  if (f.max_cost !== undefined) {
    w.push('r.cost_usd <= ?');
    a.push(f.max_cost);
  }
  // latency_ms is an integer column: compared as float8, 1.5 or 1e300 is a bound, not a 22P02.
  if (f.min_latency_ms !== undefined) {
    w.push('r.latency_ms >= ?::float8');
    a.push(f.min_latency_ms);
  }
  if (f.max_latency_ms !== undefined) {
    w.push('r.latency_ms <= ?::float8');
    a.push(f.max_latency_ms);
  }
  // Containment (@>) is what the GIN index (jsonb_path_ops) answers.
  for (const p of f.property ?? []) {
    w.push('r.properties @> ?::jsonb');
    a.push(JSON.stringify({ [p.name]: p.value }));
  }
  return { sql: w.join(' and '), args: a };
}
