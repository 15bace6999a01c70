import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, timestamp } from '../http/schemas';
import { FINDING_KINDS, SEVERITIES } from './detectors/types';

/** Request and response contracts of /api/v1/security (docs/security.md). */
const STATUSES = ['open', 'resolved', 'dismissed'] as const;
const SOURCES = ['request', 'span', 'trace'] as const;

export const findingParams = uuidParams('id');
export const listFindingsQuery = z
  .object({
    project_id: uuidSchema.optional(),
    kind: z.enum(FINDING_KINDS).optional(),
    category: z.string().max(100).optional().describe('e.g. github, aws, credit_card, email, instruction_override'),
    severity: z.enum(SEVERITIES).optional().describe('exactly this severity'),
    min_severity: z.enum(SEVERITIES).optional().describe('this severity or above'),
    status: z.enum(STATUSES).optional(),
    source: z.enum(SOURCES).optional(),
    request_id: uuidSchema.optional().describe('findings first or last seen in this request'),
    trace_id: z.string().max(128).optional().describe('findings first or last seen in this trace'),
    from: isoDateTime.optional().describe('last seen at or after'),
    to: isoDateTime.optional().describe('last seen before'),
    limit: limitQuery(50, 200),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type ListFindingsParams = z.output<typeof listFindingsQuery>;
export const readFindingQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const updateFindingBody = z.object({ status: z.enum(STATUSES) }).strict();
export const summaryQuery = z
  .object({
    project_id: uuidSchema.optional(),
    from: isoDateTime.optional().describe('default: 30 days before `to`'),
    to: isoDateTime.optional().describe('default: now'),
  })
  .strict();

const where = z.object({
  request_id: z.uuid().nullable(),
  trace_id: z.string().nullable(),
  span_id: z.string().nullable(),
});
export const findingSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    kind: z.enum(FINDING_KINDS),
    category: z.string(),
    severity: z.enum(SEVERITIES),
    detector: z
      .string()
      .describe('the rule that matched, e.g. secretlint:github/GITHUB_TOKEN, pii:card+luhn, heuristic:score=6'),
    excerpt: z.string().describe('the match masked, with a little context (other matches in it masked too)'),
    source: z.enum(SOURCES),
    field: z.enum(['request_body', 'response_body', 'input', 'output']),
    direction: z.enum(['in', 'out']),
    first: where.describe('where it was first seen'),
    last: where.describe('where it was last seen'),
    first_seen: timestamp,
    last_seen: timestamp,
    occurrences: z.number().int().describe('distinct places (request bodies, span/trace fields) it was seen in'),
    status: z.enum(STATUSES),
    status_changed_at: timestamp.nullable(),
    status_changed_by: z
      .string()
      .nullable()
      .describe("who changed the status; 'system' when a resolved finding was seen again"),
  })
  .meta({ id: 'SecurityFinding' });
export type FindingView = z.infer<typeof findingSchema>;

const counts = z.record(z.string(), z.number().int());
export const summarySchema = z
  .object({
    from: timestamp,
    to: timestamp,
    total: z.number().int().describe('findings seen in the range (last seen at or after from, first seen before to)'),
    open: z.number().int(),
    by_kind: counts,
    by_severity: counts,
    by_status: counts,
    by_kind_and_severity: z.array(
      z.object({ kind: z.enum(FINDING_KINDS), severity: z.enum(SEVERITIES), count: z.number().int() }),
    ),
    top_categories: z.array(
      z.object({
        kind: z.enum(FINDING_KINDS),
        category: z.string(),
        count: z.number().int(),
        occurrences: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'SecuritySummary' });
