import { sample } from 'openapi-sampler';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { openApiPath, pathParamNames, type AuthScheme, type RouteContract } from '../http/route';

/** The error envelope of every non-2xx answer of the REST API. */
const errorSchema = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'A message for a person' }),
    code: z.string().meta({ description: 'A stable machine-readable code' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error', description: 'Error envelope; some codes add details (issues, limit, owned, …)' });

const ERROR_TEXT: Record<number, [string, string, string]> = {
  400: ['Invalid input', 'validation_error', 'Invalid body.name: must not be empty'],
  401: [
    'Missing, invalid, expired or revoked credentials',
    'unauthorized',
    'Missing credentials: send Authorization: Bearer <token>',
  ],
  403: [
    'A valid identity without the right (role, key scope or credential kind)',
    'forbidden',
    'This action needs role admin or editor; you are viewer',
  ],
  404: ['Not found, or owned by another organization', 'not_found', 'Resource not found'],
  409: ['Conflict with the current state', 'conflict', 'Conflict'],
  413: ['Request body too large', 'payload_too_large', 'Request body is too large'],
  415: ['Unsupported content type or encoding', 'unsupported_media_type', 'Content-Type must be application/json'],
  429: ['Rate limit reached', 'rate_limited', 'Rate limit reached'],
  431: ['Request line or headers over 16 KB', 'headers_too_large', 'Request line or headers are too large'],
  500: ['Unexpected server error (never with internals)', 'internal_error', 'Internal server error'],
  503: ['A dependency is unavailable', 'unavailable', 'Service unavailable'],
};

/** Security requirements by scheme; `public_key` is listed only where reads accept it. */
function security(auth: AuthScheme, method: string): Record<string, string[]>[] {
  switch (auth) {
    case 'none':
      return [];
    case 'jwt':
    case 'jwt_user':
      return [{ jwt: [] }];
    case 'read':
      return method === 'get' ? [{ jwt: [] }, { apiKey: [] }, { publicKey: [] }] : [{ jwt: [] }, { apiKey: [] }];
    case 'api_key':
      return [{ apiKey: [] }, { publicKey: [] }];
    case 'full_key':
      return [{ apiKey: [] }];
  }
}

/** The error statuses a contract can answer with, from its scheme and inputs. */
function errorStatuses(c: RouteContract): number[] {
  const s = new Set<number>([500]);
  // A raw body the route parses itself (ingest, OTLP, the proxy) can be malformed too.
  if (c.params || c.query || c.body || c.headers || c.auth === 'jwt' || (c.rawBody && c.requestContentTypes?.length))
    s.add(400);
  if (c.auth !== 'none') s.add(401);
  if (c.auth !== 'none' && c.auth !== 'api_key') s.add(403);
  // Ids travel in paths, bodies (project_id, tokens) and headers (X-Organization-Id): any of them may name nothing.
  if (pathParamNames(c.path).length || c.auth !== 'none') s.add(404);
  if (c.body) s.add(413);
  // Node refuses a request line or headers over 16 KB before routing: long query strings reach it.
  if (c.query || pathParamNames(c.path).length) s.add(431);
  for (const k of Object.keys(c.errors ?? {})) s.add(Number(k));
  return [...s].sort();
}

const errorResponse = (status: number, c: RouteContract) => {
  const [description, code, error] = ERROR_TEXT[status] ?? ['Error', 'error', 'Error'];
  const content = c.errorBody
    ? Object.fromEntries(
        c.errorBody.contentTypes.map((t) => [t, { schema: c.errorBody!.schema, example: c.errorBody!.example }]),
      )
    : { 'application/json': { schema: errorSchema, example: { success: false, error, code } } };
  return { description: c.errors?.[status] ?? description, content };
};

function successResponses(c: RouteContract): ZodOpenApiResponsesObject {
  const status = c.status ?? 200;
  if ((c.envelope ?? 'data') === 'raw') {
    const out: Record<string, unknown> = {};
    for (const [code, doc] of Object.entries(c.rawResponses ?? { [status]: { description: 'Success' } })) {
      out[code] = {
        description: doc.description,
        ...(doc.schema || doc.example !== undefined
          ? {
              content: Object.fromEntries(
                [doc.contentType ?? 'application/json'].flat().map((t) => [
                  t,
                  {
                    schema: doc.schema ?? z.unknown(),
                    ...(doc.example !== undefined ? { example: doc.example } : {}),
                  },
                ]),
              ),
            }
          : {}),
      };
    }
    return out as ZodOpenApiResponsesObject;
  }
  const data = c.response ?? z.unknown();
  const schema =
    c.envelope === 'page'
      ? z.object({
          success: z.literal(true),
          data: z.array(data),
          next_cursor: z
            .string()
            .nullable()
            .meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
        })
      : z.object({ success: z.literal(true), data });
  const example =
    c.example === undefined
      ? undefined
      : {
          success: true,
          data: c.envelope === 'page' ? [c.example] : c.example,
          ...(c.envelope === 'page' ? { next_cursor: null } : {}),
        };
  const content = { 'application/json': { schema, ...(example ? { example } : {}) } };
  const out: Record<string, unknown> = { [status]: { description: c.summary, content } };
  for (const [code, description] of Object.entries(c.otherStatuses ?? {})) out[code] = { description, content };
  return out as ZodOpenApiResponsesObject;
}

function operation(c: RouteContract): ZodOpenApiOperationObject {
  const names = pathParamNames(c.path);
  const path = c.params ?? (names.length ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined);
  const responses: Record<string, unknown> = { ...successResponses(c) };
  for (const s of errorStatuses(c)) responses[String(s)] = errorResponse(s, c);
  const types = c.requestContentTypes ?? (c.body ? ['application/json'] : []);
  // A body schema that accepts nothing at all (a default for the whole body) makes the body optional.
  const required = !c.body?.safeParse(undefined).success;
  return {
    operationId: operationId(c),
    summary: c.summary,
    ...(c.description ? { description: c.description } : {}),
    tags: [c.tag],
    security: security(c.auth, c.method),
    'x-auth': c.auth,
    ...(c.roles ? { 'x-roles': [...c.roles] } : {}),
    ...(c.write ? { 'x-write': true } : {}),
    requestParams: {
      ...(path ? { path } : {}),
      ...(c.query ? { query: c.query } : {}),
      ...(c.headers ? { header: c.headers } : {}),
    },
    ...(types.length
      ? {
          requestBody: {
            required,
            content: Object.fromEntries(
              types.map((t) => [t, { schema: t.includes('json') && c.body ? c.body : z.unknown() }]),
            ),
          },
        }
      : {}),
    responses: responses as ZodOpenApiResponsesObject,
  };
}

function operationId(c: RouteContract): string {
  const words = c.path
    .replace(/^\/(api\/v1\/)?/, '')
    .split(/[/_-]+/)
    .filter(Boolean)
    .map((w) => (w.startsWith(':') || w.startsWith('*') ? `By${cap(w.slice(1))}` : cap(w)));
  return c.method + words.join('');
}
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export interface DocumentInfo {
  version: string;
  serverUrl?: string;
}

/** The OpenAPI 3.1 document of these routes; responses without an example get one sampled from the schema. */
export function buildOpenApiDocument(routes: RouteContract[], info: DocumentInfo) {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const c of routes) (paths[openApiPath(c.path)] ??= {})[c.method] = operation(c);
  const doc = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'LLM observability gateway',
      version: info.version,
      description:
        'Provider proxy, request log, trace ingest (JSON and OTLP), dashboard REST API ' +
        'and signed webhooks on Temporal. ' +
        'Every REST answer is `{success:true,data}` or the Error envelope.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    components: {
      securitySchemes: {
        jwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A user token from the identity provider (1 hour); X-Organization-Id picks the organization',
        },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sl_live_…',
          description: 'A full-scope project API key',
        },
        publicKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sl_live_pub_…',
          description: 'A public project key: reads only',
        },
      },
    },
    paths,
  });
  addExamples(doc as unknown as OpenApiDoc);
  return doc;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }> }>
  >;
}

function addExamples(doc: OpenApiDoc) {
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      for (const res of Object.values(op.responses)) {
        for (const media of Object.values(res.content ?? {})) {
          if (media.example === undefined && media.schema)
            media.example = sample(media.schema as object, { skipReadOnly: false }, doc);
        }
      }
    }
  }
}
