import { z } from 'zod';
import type { AppContext } from '../context';
import { route } from '../http/route';
import { createExportBody, exportParams, exportQuery, exportSchema, listExportsQuery, signedQuery } from './schemas';
import {
  cancelExport,
  createExport,
  deleteExport,
  download,
  downloadSigned,
  getExport,
  listExports,
  type ExportDeps,
} from './service';

const common = { tag: 'Exports', auth: 'jwt', notFound: 'Export' } as const;
const BASE = '/api/v1/exports';
const FILE = {
  200: {
    description: 'The file, streamed (CSV, JSON Lines or Parquet)',
    contentType: ['text/csv', 'application/x-ndjson', 'application/vnd.apache.parquet'],
    schema: z.string(),
  },
};
const FILE_ERRORS = { 409: 'The export is not completed yet', 410: 'The file expired and was deleted' };

/** /api/v1/exports (JWT; every role may export, API keys may not) and the signed file link (docs/exports.md). */
export const exportRoutes = (ctx: AppContext) => {
  const { db } = ctx;
  const deps: ExportDeps = { db, temporal: ctx.temporal, store: ctx.exportStore, config: ctx.config };
  const base = (req: { protocol: string; get(h: string): string | undefined }) =>
    `${req.protocol}://${req.get('host')}`;
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List exports, newest first',
      query: listExportsQuery,
      response: exportSchema.array(),
      scope: 'project',
      handler: async ({ scope, query, req }) => listExports(deps, scope, query.limit, base(req)),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Export every row matching a filter to CSV, JSON Lines or Parquet (a Temporal workflow)',
      body: createExportBody,
      status: 202,
      response: exportSchema,
      scope: 'project',
      handler: async ({ principal, scope, body, req }) => createExport(deps, principal, scope, body, base(req)),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Status and progress of an export; a completed one has download links',
      params: exportParams,
      query: exportQuery,
      response: exportSchema,
      scope: 'project',
      handler: async ({ scope, params, req }) => getExport(deps, scope, params.id, base(req)),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/cancel`,
      summary: 'Cancel a running export (who started it, an admin or an editor)',
      params: exportParams,
      query: exportQuery,
      response: exportSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, req }) => cancelExport(deps, principal, scope, params.id, base(req)),
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete an export and its file (who started it, an admin or an editor)',
      params: exportParams,
      query: exportQuery,
      response: z.object({ id: z.uuid(), deleted: z.literal(true) }),
      scope: 'project',
      handler: async ({ principal, scope, params }) => deleteExport(deps, principal, scope, params.id),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/download`,
      summary: 'Stream the export’s file',
      params: exportParams,
      query: exportQuery,
      envelope: 'raw',
      rawResponses: FILE,
      errors: FILE_ERRORS,
      scope: 'project',
      handler: async ({ scope, params, res }) => download(deps, scope, params.id, res),
    }),
    route({
      tag: 'Exports',
      auth: 'none',
      notFound: 'Export',
      method: 'get',
      path: `${BASE}/:id/file`,
      summary: 'Stream the file through a signed link (no credentials: `signed_url` of GET /exports/:id)',
      params: exportParams,
      query: signedQuery,
      envelope: 'raw',
      rawResponses: FILE,
      errors: { 410: 'The link or the file expired' },
      handler: async ({ params, query, res }) => downloadSigned(deps, params.id, query.expires, query.signature, res),
    }),
  ];
};
