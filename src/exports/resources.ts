import type { Knex } from 'knex';
import { z } from 'zod';
import { requestWhere } from '../filters/request-filter';
import { listRequests } from '../requests/service';
import { listRequestsQuery } from '../requests/schemas';
import { listTraces, spanOut } from '../traces/service';
import { spanRowsOfTraces, traceBodies, traceWhere } from '../traces/service';
import { traceListQuery } from '../traces/schemas';
import { listSessions } from '../sessions/service';
import { sessionListQuery } from '../sessions/schemas';
import { listScores } from '../scores/service';
import { listScoresQuery } from '../scores/schemas';
import { listItems as listDatasetItems, requireDataset } from '../datasets/service';
import { itemsAt } from '../datasets/service';
import { listItemsQuery as datasetItemsQuery } from '../datasets/schemas';
import { itemsQuery as experimentItemsQuery } from '../experiments/schemas';
import { uuidSchema } from '../http/ids';
import type { View } from '../saved-filters/schemas';
import { cols, type Column } from './columns';

type Row = Record<string, unknown>;
export interface Page {
  data: Row[];
  next_cursor: string | null;
}

/**
 * One exportable resource: its filter (the list route's own query parameters, so an export and the
 * list agree row for row), its columns, and a keyset page reader built on the list's service.
 */
export interface ExportResource {
  /** The saved-filter view whose filters apply (none: saved filters are refused). */
  view?: View;
  filter: z.ZodObject;
  columns: Column[];
  page(
    db: Knex,
    projectIds: string[],
    filter: Row,
    cursor: string | null,
    limit: number,
    bodies: boolean,
  ): Promise<Page>;
  /** The number of rows the export will write, when a count is cheap enough to ask. */
  count?(db: Knex, projectIds: string[], filter: Row): Promise<number>;
}

const PAGING = { limit: true, cursor: true, saved_filter_id: true } as const;
const asPage = (p: { data: unknown[]; next_cursor: string | null }): Page => p as Page;
/** The list's query with a page's limit and cursor (the filter was validated by the list's schema). */
const paged = (f: Row, limit: number, cursor: string | null, extra: Row = {}) =>
  ({ ...f, ...extra, limit, cursor: cursor ?? undefined }) as never;
const countOf = async (q: Promise<{ rows: { n: string }[] }>) => Number((await q).rows[0]!.n);

const requestColumns = cols(
  'id',
  'project_id',
  'api_key_id',
  'provider',
  'model',
  'method',
  'path',
  'prompt_tokens:int',
  'completion_tokens:int',
  'total_tokens:int',
  'cache_read_tokens:int',
  'cache_write_tokens:int',
  'cost_usd:float',
  'cost_saved_usd:float',
  'latency_ms:int',
  'ttfb_ms:int',
  'status_code:int',
  'trace_id',
  'span_id',
  'user_id',
  'session_id',
  'log_mode',
  'cache_hit:bool',
  'streamed:bool',
  'tokens_estimated:bool',
  'self_hosted:bool',
  'prompt_version_id',
  'error',
  'properties:json',
  'created_at:time',
  '+request_body',
  '+response_body',
);
const traceColumns = cols(
  'id',
  'project_id',
  'name',
  'status',
  'session_id',
  'user_id',
  'start_time:time',
  'end_time:time',
  'duration_ms:int',
  'span_count:int',
  'prompt_tokens:int',
  'completion_tokens:int',
  'total_tokens:int',
  'cost_usd:float',
  'metadata:json',
  'source',
  'pending_create:bool',
  'created_at:time',
  'updated_at:time',
  '+input:json',
  '+output:json',
);
const spanColumns = cols(
  'id',
  'trace_id',
  'project_id',
  'parent_span_id',
  'name',
  'span_type',
  'status',
  'model',
  'prompt_tokens:int',
  'completion_tokens:int',
  'total_tokens:int',
  'cost_usd:float',
  'metadata:json',
  'start_time:time',
  'end_time:time',
  'duration_ms:int',
  'pending_create:bool',
  '+input:json',
  '+output:json',
);
const sessionColumns = cols(
  'id',
  'project_id',
  'user_id',
  'trace_count:int',
  'request_count:int',
  'first_seen_at:time',
  'last_seen_at:time',
  'duration_ms:int',
  'trace_duration_ms:int',
  'prompt_tokens:int',
  'completion_tokens:int',
  'total_tokens:int',
  'cost_usd:float',
  'breakdown:json',
);
const scoreColumns = cols(
  'id',
  'project_id',
  'name',
  'data_type',
  'value:float',
  'string_value',
  'source',
  'comment',
  'config_id',
  'target_type',
  'request_id',
  'trace_id',
  'span_id',
  'session_id',
  'experiment_id',
  'experiment_item_id',
  'experiment_repetition:int',
  'created_by',
  'created_at:time',
  'updated_at:time',
);
const datasetItemColumns = cols(
  'id',
  'dataset_id',
  'version:time',
  'input:json',
  'expected_output:json',
  'metadata:json',
  'source_request_id',
  'source_trace_id',
  'source_span_id',
  'split',
  'status',
);
const experimentColumns = cols(
  'item_id',
  'repetition:int',
  'status',
  'output:json',
  'request_id',
  'trace_id',
  'latency_ms:int',
  'cost_usd:float',
  'error',
  'scores:json',
);

const traceFilter = traceListQuery.omit(PAGING).strict();
const traceKey = (t: Row) => ({ project_id: t.project_id as string, id: t.id as string });

export const RESOURCES = {
  requests: {
    view: 'requests',
    filter: listRequestsQuery.omit({ ...PAGING, include_bodies: true }),
    columns: requestColumns,
    page: async (db, projectIds, f, cursor, limit, bodies) =>
      asPage(await listRequests(db, projectIds, paged(f, limit, cursor, { include_bodies: bodies }))),
    count: async (db, projectIds, f) => {
      const w = requestWhere(projectIds, f);
      return countOf(db.raw(`select count(*) as n from requests r where ${w.sql}`, w.args));
    },
  },
  traces: {
    view: 'traces',
    filter: traceFilter,
    columns: traceColumns,
    async page(db, projectIds, f, cursor, limit, bodies) {
      const p = await listTraces(db, projectIds, paged(f, limit, cursor));
      if (!bodies) return asPage(p);
      const io = await traceBodies(db, p.data.map(traceKey));
      return {
        data: p.data.map((t) => ({
          ...t,
          input: io.get(`${t.project_id}/${t.id}`)?.input ?? null,
          output: io.get(`${t.project_id}/${t.id}`)?.output ?? null,
        })),
        next_cursor: p.next_cursor,
      };
    },
    count: async (db, projectIds, f) => {
      const w = traceWhere(projectIds, f);
      return countOf(db.raw(`select count(*) as n from traces t where ${w.sql}`, w.args));
    },
  },
  spans: {
    view: 'traces',
    filter: traceFilter,
    columns: spanColumns,
    // A page is the spans of a page of matching traces; the cursor is the trace list's.
    async page(db, projectIds, f, cursor, limit, bodies) {
      const p = await listTraces(db, projectIds, paged(f, Math.max(1, Math.floor(limit / 10)), cursor));
      const spans = await spanRowsOfTraces(db, p.data.map(traceKey), bodies);
      return { data: spans.map((s) => ({ ...spanOut(s), project_id: s.project_id })), next_cursor: p.next_cursor };
    },
    count: async (db, projectIds, f) => {
      const w = traceWhere(projectIds, f);
      return countOf(
        db.raw(
          `select count(*) as n from traces t
             join spans s on s.project_id = t.project_id and s.trace_id = t.id where ${w.sql}`,
          w.args,
        ),
      );
    },
  },
  sessions: {
    view: 'sessions',
    filter: sessionListQuery.omit(PAGING).strict(),
    columns: sessionColumns,
    page: async (db, projectIds, f, cursor, limit) =>
      asPage(await listSessions(db, projectIds, paged(f, limit, cursor))),
  },
  scores: {
    filter: listScoresQuery.omit({ limit: true, cursor: true }),
    columns: scoreColumns,
    page: async (db, projectIds, f, cursor, limit) => asPage(await listScores(db, projectIds, paged(f, limit, cursor))),
  },
  dataset_items: {
    filter: datasetItemsQuery.omit({ limit: true, cursor: true }).extend({ dataset_id: uuidSchema }),
    columns: datasetItemColumns,
    page: async (db, projectIds, f, cursor, limit) =>
      asPage(await listDatasetItems(db, projectIds, f.dataset_id as string, paged(f, limit, cursor))),
    count: async (db, projectIds, f) => {
      await requireDataset(db, projectIds, f.dataset_id as string);
      const all = itemsAt(db, f.dataset_id as string, { ...(f as object), after: null, limit: 1e9 } as never);
      return Number(((await db.count('* as n').from(all.as('x')).first()) as { n: string }).n);
    },
  },
  experiment_results: {
    filter: experimentItemsQuery.omit({ limit: true, cursor: true }).extend({ experiment_id: uuidSchema }),
    columns: experimentColumns,
    page: async (db, projectIds, f, cursor, limit) => {
      // Loaded on use: the experiments service brings the LLM client (~20 MB) into an export worker.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
      const { listItems } = require('../experiments/service') as typeof import('../experiments/service');
      return asPage(await listItems(db, projectIds, f.experiment_id as string, paged(f, limit, cursor)));
    },
  },
} satisfies Record<string, ExportResource>;

export type ResourceName = keyof typeof RESOURCES;
export const RESOURCE_NAMES = Object.keys(RESOURCES) as [ResourceName, ...ResourceName[]];
export const resourceOf = (name: string): ExportResource => RESOURCES[name as ResourceName];
