import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { MEASURES } from '../anomalies/detector';
import { FINDING_KINDS, SEVERITIES } from '../security/detectors/types';

// Apart from schemas.ts, which lists the alert types of ./sources: the sources take this type, so
// keeping it there made schemas.ts and sources/ import each other.

const text = (max: number) => z.string().trim().min(1).max(max);
const num = z.number().finite().min(0);

/**
 * The analytics filter language (docs/analytics.md) as JSON: the same fields as the query
 * parameters of /stats and /requests, minus the range (the window is the range) and the project
 * (the rule's `project_id`). Stored as sent; src/alerts/filter.ts turns it into a RequestFilter.
 */
export const alertFilterSchema = z
  .object({
    provider: text(50).optional(),
    model: text(500).optional(),
    status: z.string().regex(/^([1-5]\d\d|[1-5]xx)$/, 'an HTTP status like 200 or a class like 4xx').optional(),
    user_id: text(256).optional(),
    session_id: text(256).optional(),
    api_key_id: uuidSchema.optional(),
    trace_id: text(128).optional(),
    prompt: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,127}(@[1-9]\d{0,8})?$/, 'a prompt name, or <name>@<version>').optional(),
    prompt_version_id: uuidSchema.optional(),
    cache_hit: z.boolean().optional(),
    streamed: z.boolean().optional(),
    self_hosted: z.boolean().optional(),
    min_cost: num.optional(),
    max_cost: num.optional(),
    min_latency_ms: num.optional(),
    max_latency_ms: num.optional(),
    property: z
      .array(z.string().max(330).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:/, 'a custom property filter is <name>:<value>'))
      .max(20)
      .optional()
      .describe('custom properties `<name>:<value>`; all must match'),
    measure: z.enum(MEASURES).optional().describe('type anomaly only: anomalies of this measure'),
    severity: z.enum(SEVERITIES).optional().describe('type security_finding only: this severity or above'),
    finding_kind: z.enum(FINDING_KINDS).optional().describe('type security_finding only: secret, pii or prompt_injection'),
  })
  .strict();
/** Filter fields that belong to the non-request alert types (src/alerts/sources/findings.ts). */
export const NON_REQUEST_FILTER_KEYS = ['measure', 'severity', 'finding_kind'] as const;
export type AlertFilter = z.infer<typeof alertFilterSchema>;
