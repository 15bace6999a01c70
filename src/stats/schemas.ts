import { z } from 'zod';
import { GRANULARITIES } from '../analytics/buckets';
import { requestFilterShape } from '../filters/request-filter';
import { savedFilterIdParam } from '../saved-filters/schemas';
import { measuresSchema } from '../analytics/measures';
import { scoreMeasuresSchema } from '../analytics/score-stats';
import { traceMeasuresSchema } from '../analytics/trace-stats';

const GROUP_DIMS = ['model', 'provider', 'user', 'session', 'api_key', 'prompt_version', 'status_code'] as const;
const SPAN_GROUPS = ['span_type', 'model', 'name'] as const;
const SCORE_GROUPS = ['name', 'source', 'data_type'] as const;

export const statsQuery = z
  .object({
    ...requestFilterShape,
    ...savedFilterIdParam,
    view: z
      .enum(['requests', 'traces', 'spans', 'scores'])
      .default('requests')
      .describe('scores: count, average and label distribution of scores (docs/scores.md)'),
    granularity: z
      .enum(GRANULARITIES)
      .default('auto')
      .describe('auto: about 50 buckets, at least an hour over a day or more'),
    tz: z
      .string()
      .min(1)
      .max(64)
      .default('UTC')
      .describe('IANA zone: day, week and month buckets start at local midnight'),
    group_by: z
      .string()
      .regex(
        new RegExp(
          `^(${[...GROUP_DIMS, ...SPAN_GROUPS, ...SCORE_GROUPS].join('|')}|property:[A-Za-z0-9][A-Za-z0-9_.-]{0,63})$`,
        ),
        `one of ${[...new Set([...GROUP_DIMS, ...SPAN_GROUPS, ...SCORE_GROUPS])].join(', ')}, or property:<name>`,
      )
      .optional(),
    top: z.coerce.number().int().min(1).max(50).default(10),
    order_by: z
      .enum(['requests', 'cost_usd', 'total_tokens', 'errors'])
      .default('requests')
      .describe('what ranks the groups'),
    source: z
      .enum(['auto', 'raw'])
      .default('auto')
      .describe(
        'raw: always read the raw rows (exact unique counts under any filter, exact span duration percentiles)',
      ),
    /** Trace and span views: a trace name, a span type, metadata `<key>:<value>`; scores view: the score name. */
    name: z.string().trim().min(1).max(512).optional(),
    span_type: z.enum(['llm', 'retrieval', 'tool', 'agent', 'chain', 'embedding', 'other']).optional(),
    metadata: z
      .union([z.string().max(330), z.array(z.string().max(330)).max(20)])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional()
      .meta({ description: 'traces and spans: metadata `<key>:<value>` (string values), repeatable' }),
  })
  .strict();
export type StatsParams = z.output<typeof statsQuery>;
export { GROUP_DIMS, SCORE_GROUPS };

const bucket = z.string().meta({ format: 'date-time' });
const point = <T extends z.ZodObject>(m: T) => m.extend({ bucket });
const answer = <T extends z.ZodObject>(m: T) =>
  z.object({
    view: z.enum(['requests', 'traces', 'spans', 'scores']),
    source: z.enum(['rollup', 'raw']).describe('hourly rollups or the raw rows'),
    from: bucket,
    to: bucket,
    tz: z.string(),
    granularity: z.object({ unit: z.enum(['minute', 'hour', 'day', 'week', 'month']), step: z.number().int() }),
    totals: m,
    series: z.array(point(m)).describe('every bucket of [from, to), zero-filled'),
    breakdown: z
      .object({
        group_by: z.string(),
        order_by: z.string(),
        items: z.array(m.extend({ key: z.string(), series: z.array(point(m)) })),
        other: m
          .extend({ series: z.array(point(m)) })
          .nullable()
          .describe('every group beyond the top ones, and calls without the dimension'),
      })
      .nullable(),
  });

export const statsAnswerSchema = z
  .union([answer(measuresSchema), answer(traceMeasuresSchema), answer(scoreMeasuresSchema)])
  .meta({ id: 'Stats' });
