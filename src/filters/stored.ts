import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { checkFilter, type RequestFilter } from './request-filter';

const text = (max: number) => z.string().trim().min(1).max(max);
const num = z.number().finite().min(0);

/**
 * The filter language (./request-filter.ts) as stored JSON: the same fields as the query
 * parameters of /stats and /requests, minus the range and the project (the owner has its own).
 * Alert rules (which add fields of their non-request types), eval-run targets, online evaluation
 * and dataset imports store it as sent; `requestFilterOf` turns it into a RequestFilter.
 */
export const storedFilterShape = {
  provider: text(50).optional(),
  model: text(500).optional(),
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx)$/, 'an HTTP status like 200 or a class like 4xx')
    .optional(),
  user_id: text(256).optional(),
  session_id: text(256).optional(),
  api_key_id: uuidSchema.optional(),
  trace_id: text(128).optional(),
  prompt: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,127}(@[1-9]\d{0,8})?$/, 'a prompt name, or <name>@<version>')
    .optional(),
  prompt_version_id: uuidSchema.optional(),
  cache_hit: z.boolean().optional(),
  streamed: z.boolean().optional(),
  self_hosted: z.boolean().optional(),
  min_cost: num.optional(),
  max_cost: num.optional(),
  min_latency_ms: num.optional(),
  max_latency_ms: num.optional(),
  property: z
    .array(
      z
        .string()
        .max(330)
        .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:/, 'a custom property filter is <name>:<value>'),
    )
    .max(20)
    .optional()
    .describe('custom properties `<name>:<value>`; all must match'),
};
export type StoredFilter = z.infer<z.ZodObject<typeof storedFilterShape>>;

/** A stored filter as the filter language's RequestFilter (property names lower-cased as on requests). */
export function requestFilterOf(f: StoredFilter): RequestFilter {
  const { property, ...rest } = f;
  const out: RequestFilter = { ...rest };
  if (property?.length)
    out.property = property.map((p) => {
      const at = p.indexOf(':');
      return { name: p.slice(0, at).toLowerCase(), value: p.slice(at + 1) };
    });
  checkFilter(out);
  return out;
}
