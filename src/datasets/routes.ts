import type { Request } from 'express';
import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import { readRawBody } from '../proxy/request-body';
import {
  addItemsBody,
  changeSchema,
  createDatasetBody,
  datasetParams,
  datasetQuery,
  datasetSchema,
  fromProductionBody,
  itemParams,
  itemSchema,
  listItemsQuery,
  updateDatasetBody,
  uploadQuery,
  versionSchema,
} from './schemas';
import {
  addFromProduction,
  addItems,
  archiveItem,
  createDataset,
  deleteDataset,
  listDatasets,
  listItems,
  requireDataset,
  updateDataset,
  uploadItems,
  versions,
} from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Datasets', auth: 'jwt', notFound: 'Dataset' } as const;
const BASE = '/api/v1/datasets';
const UPLOAD_LIMIT = 20 * 1024 * 1024;

/** The upload's format from its content type: CSV or JSON Lines. */
function uploadFormat(req: Request): 'csv' | 'jsonl' {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines'].includes(type)) return 'jsonl';
  throw new HttpError(
    415,
    'unsupported_media_type',
    'Upload text/csv (with a header row) or application/x-ndjson (one JSON object a line)',
  );
}

/** /api/v1/datasets: JWT; every role reads, admin and editor write (docs/datasets.md). */
export const datasetRoutes = ({ db }: AppContext) => {
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'List datasets with their item counts and latest version',
      query: datasetQuery,
      response: datasetSchema.array(),
      scope: 'project',
      handler: async ({ scope }) => listDatasets(db, scope.projectIds),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Create a dataset',
      roles: WRITERS,
      body: createDatasetBody,
      status: 201,
      response: datasetSchema,
      scope: 'project',
      handler: async ({ principal, scope, body }) => createDataset(db, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Read a dataset',
      params: datasetParams,
      query: datasetQuery,
      response: datasetSchema,
      scope: 'project',
      handler: async ({ scope, params }) => requireDataset(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Rename or describe a dataset',
      roles: WRITERS,
      params: datasetParams,
      query: datasetQuery,
      body: updateDatasetBody,
      response: datasetSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) =>
        updateDataset(db, principal, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete a dataset and all its versions',
      roles: WRITERS,
      params: datasetParams,
      query: datasetQuery,
      response: deletedSchema,
      scope: 'project',
      handler: async ({ principal, scope, params }) => deleteDataset(db, principal, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/versions`,
      summary: 'The dataset’s versions, newest first, with what each changed',
      params: datasetParams,
      query: datasetQuery,
      response: versionSchema.array(),
      scope: 'project',
      handler: async ({ scope, params }) => versions(db, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id/items`,
      summary: 'Items at a version (default the latest), by id',
      params: datasetParams,
      query: listItemsQuery,
      envelope: 'page',
      response: itemSchema,
      scope: 'project',
      handler: async ({ scope, params, query }) => listItems(db, scope.projectIds, params.id, query),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/items`,
      summary: 'Add or update items (client ids upsert): one new version',
      roles: WRITERS,
      params: datasetParams,
      query: datasetQuery,
      body: addItemsBody,
      response: changeSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) =>
        addItems(db, principal, scope.projectIds, params.id, body.items),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/items/from-production`,
      summary: 'Add items from requests or traces matching a filter (newest or a random sample)',
      roles: WRITERS,
      params: datasetParams,
      query: datasetQuery,
      body: fromProductionBody,
      response: changeSchema,
      scope: 'project',
      handler: async ({ principal, scope, params, body }) =>
        addFromProduction(db, principal, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'post',
      path: `${BASE}/:id/items/upload`,
      summary: 'Upload items as CSV (header row) or JSON Lines; refused rows are reported by row number',
      roles: WRITERS,
      params: datasetParams,
      query: uploadQuery,
      rawBody: true,
      requestContentTypes: ['text/csv', 'application/x-ndjson'],
      response: changeSchema,
      errors: { 415: 'Not CSV or JSON Lines' },
      scope: 'project',
      handler: async ({ principal, scope, params, query, req }) => {
        const format = uploadFormat(req);
        const text = (await readRawBody(req, UPLOAD_LIMIT)).toString('utf8');
        return uploadItems(db, principal, scope.projectIds, params.id, text, format, query.split);
      },
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id/items/:itemId`,
      summary: 'Archive an item (a new version; older versions keep it)',
      roles: WRITERS,
      params: itemParams,
      query: datasetQuery,
      response: changeSchema,
      scope: 'project',
      handler: async ({ principal, scope, params }) =>
        archiveItem(db, principal, scope.projectIds, params.id, params.itemId),
    }),
  ];
};
