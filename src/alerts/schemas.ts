import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { nameSchema, timestamp } from '../http/schemas';
import { alertFilterSchema } from './filter-schema';
import { ALERT_TYPES, measureSources } from './sources';

/** Request and response contracts of /api/v1/alerts (docs/alerts.md). */

export { NON_REQUEST_FILTER_KEYS, type AlertFilter } from './filter-schema';

const GROUP_BY = /^(model|provider|user|api_key|prompt_version|status_code|property:[A-Za-z0-9][A-Za-z0-9_.-]{0,63})$/;
const groupBy = z
  .string()
  .regex(GROUP_BY, 'one of model, provider, user, api_key, prompt_version, status_code, or property:<name>');

const typeDoc = ALERT_TYPES.map((t) => `${t}: ${measureSources[t].doc}`).join('; ');
const fields = {
  name: nameSchema,
  project_id: uuidSchema
    .nullable()
    .optional()
    .describe('one project of the organization; absent or null: every project'),
  type: z.enum(ALERT_TYPES).describe(typeDoc),
  operator: z.enum(['gt', 'gte', 'lt', 'lte']).describe('how current_value compares to the thresholds'),
  threshold: z.number().finite(),
  warning_threshold: z.number().finite().nullable().optional(),
  window_minutes: z.number().int().min(1).max(1440),
  filter: alertFilterSchema.optional(),
  group_by: groupBy.nullable().optional().describe('one evaluation (and one state) per value of the dimension'),
  min_requests: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe('fewer calls in the window count as no data (not for request_count)'),
  no_data: z.enum(['ok', 'alert', 'keep']).optional(),
  cooldown_minutes: z
    .number()
    .int()
    .min(0)
    .max(10080)
    .optional()
    .describe('while still triggered, notify again after this long (0: never)'),
  is_active: z.boolean().optional(),
};

export const createAlertBody = z.object(fields).strict();
export const updateAlertBody = z
  .object(
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]>;
    },
  )
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
        status: z
          .enum(['synced', 'pending'])
          .describe('pending: Temporal has not taken the latest change yet; the reconcile will'),
        error: z.string().nullable(),
      })
      .describe('the rule’s Temporal Schedule'),
    states: z
      .array(
        z.object({
          group: z.string(),
          state: z.string(),
          since: timestamp,
          no_data: z.boolean(),
          last_value: z.number().nullable(),
        }),
      )
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
    source: z
      .string()
      .describe('rollup, mixed (whole hours from the rollups, the edges raw) or raw: where the values came from'),
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
