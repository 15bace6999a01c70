import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, timestamp } from '../http/schemas';
import { DIMENSIONS, MEASURES } from './detector';

const STATUSES = ['open', 'acknowledged', 'resolved'] as const;

export const anomalyParams = uuidParams('id');
export const listAnomaliesQuery = z
  .object({
    project_id: uuidSchema.optional(),
    status: z.enum(STATUSES).optional(),
    measure: z.enum(MEASURES).optional(),
    dimension: z.enum(DIMENSIONS).optional(),
    from: isoDateTime.optional().describe('last seen at or after'),
    to: isoDateTime.optional().describe('last seen before'),
    limit: limitQuery(50, 200),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type ListAnomaliesParams = z.output<typeof listAnomaliesQuery>;
export const readAnomalyQuery = z.object({ project_id: uuidSchema.optional() }).strict();

export const updateAnomalyBody = z.object({ status: z.enum(['acknowledged', 'resolved']) }).strict();

export const anomalySchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    measure: z.enum(MEASURES),
    dimension: z.enum(DIMENSIONS),
    dimension_value: z.string().describe("the model or end-user id; '' for the project"),
    direction: z.enum(['up', 'down']),
    expected: z
      .object({ low: z.number(), median: z.number(), high: z.number() })
      .describe('the baseline median and the range a score under 5 allows'),
    observed: z.number().describe('the value over the window'),
    score: z.number().describe('|observed − median| / (1.4826 × MAD), floored scale'),
    baseline: z.object({ points: z.number().int(), seasonal: z.boolean(), from: timestamp, to: timestamp }),
    window: z.object({ start: timestamp, end: timestamp }),
    first_seen: timestamp,
    last_seen: timestamp,
    detections: z.number().int(),
    sample_request_ids: z.array(z.uuid()).describe('the calls of the window that contributed most'),
    status: z.enum(STATUSES),
    acknowledged_at: timestamp.nullable(),
    acknowledged_by: z.string().nullable(),
    resolved_at: timestamp.nullable(),
    resolved_by: z.string().nullable().describe("who resolved it; 'system' when it stopped being detected"),
  })
  .meta({ id: 'Anomaly' });
