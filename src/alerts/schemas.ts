import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { nameSchema, timestamp } from '../http/schemas';
import { MEASURES } from '../anomalies/detector';
import { FINDING_KINDS, SEVERITIES } from '../security/detectors/types';
import { ALERT_TYPES, measureSources } from './sources';

/** Request and response contracts of /api/v1/alerts (docs/alerts.md). */

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

const GROUP_BY = /^(model|provider|user|api_key|prompt_version|status_code|property:[A-Za-z0-9][A-Za-z0-9_.-]{0,63})$/;
const groupBy = z.string().regex(GROUP_BY, 'one of model, provider, user, api_key, prompt_version, status_code, or property:<name>');

const typeDoc = ALERT_TYPES.map((t) => `${t}: ${measureSources[t].doc}`).join('; ');
const fields = {
  name: nameSchema,
  project_id: uuidSchema.nullable().optional().describe('one project of the organization; absent or null: every project'),
  type: z.enum(ALERT_TYPES).describe(typeDoc),
  operator: z.enum(['gt', 'gte', 'lt', 'lte']).describe('how current_value compares to the thresholds'),
  threshold: z.number().finite(),
  warning_threshold: z.number().finite().nullable().optional(),
  window_minutes: z.number().int().min(1).max(1440),
  filter: alertFilterSchema.optional(),
  group_by: groupBy.nullable().optional().describe('one evaluation (and one state) per value of the dimension'),
  min_requests: z.number().int().min(0).max(1_000_000).optional().describe('fewer calls in the window count as no data (not for request_count)'),
  no_data: z.enum(['ok', 'alert', 'keep']).optional(),
  cooldown_minutes: z.number().int().min(0).max(10080).optional().describe('while still triggered, notify again after this long (0: never)'),
  is_active: z.boolean().optional(),
};

export const createAlertBody = z.object(fields).strict();
export const updateAlertBody = z
  .object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]> })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one field');
export type CreateAlertInput = z.infer<typeof createAlertBody>;
export type UpdateAlertInput = z.infer<typeof updateAlertBody>;

export const alertParams = uuidParams('id');
export const eventsQuery = z.object({ limit: limitQuery(50, 200), cursor: cursorQuery.optional() }).strict();

export const alertSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    project_id: z.string().nullable(),
    type: z.string(),
    operator: z.string(),
    threshold: z.number(),
    warning_threshold: z.number().nullable(),
    window_minutes: z.number().int(),
    filter: z.record(z.string(), z.unknown()),
    group_by: z.string().nullable(),
    min_requests: z.number().int(),
    no_data: z.string(),
    cooldown_minutes: z.number().int(),
    is_active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    schedule: z
      .object({
        id: z.string().describe('the Temporal Schedule id'),
        interval_minutes: z.number().int(),
        status: z.enum(['synced', 'pending']).describe('pending: Temporal has not taken the latest change yet; the reconcile will'),
        error: z.string().nullable(),
      })
      .describe('the rule’s Temporal Schedule'),
    states: z
      .array(z.object({ group: z.string(), state: z.string(), since: timestamp, no_data: z.boolean(), last_value: z.number().nullable() }))
      .optional()
      .describe('per group (single reads only)'),
  })
  .meta({ id: 'AlertRule' });
export type AlertView = z.infer<typeof alertSchema>;

export const alertEventSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(['triggered', 'warning', 'resolved', 'no_data']),
    group: z.string(),
    value: z.number().nullable(),
    threshold: z.number().nullable(),
    requests: z.number().int().nullable(),
    notified: z.boolean().describe('alert.triggered was written to the event outbox with this event'),
    at: timestamp,
  })
  .meta({ id: 'AlertEvent' });

export const evaluationSchema = z
  .object({
    evaluated_at: timestamp,
    window: z.object({ from: timestamp, to: timestamp }),
    source: z.string().describe('rollup, mixed (whole hours from the rollups, the edges raw) or raw: where the values came from'),
    groups: z
      .array(
        z.object({
          group: z.string(),
          current_value: z.number().nullable(),
          requests: z.number().int().nullable(),
          level: z.enum(['ok', 'warning', 'alert', 'no_data']),
          state: z.string().describe('the stored state (unchanged by this call)'),
          detail: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .describe('worst first'),
  })
  .meta({ id: 'AlertEvaluation' });
export type Evaluation = z.infer<typeof evaluationSchema>;
