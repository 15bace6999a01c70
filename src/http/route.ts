import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { HttpError } from './errors';
import type { Principal, Role } from './principal';

/**
 * Route contracts: every HTTP route of the service is one of these. The contract validates the
 * input, types the handler, checks the response in tests and generates the OpenAPI document.
 *
 * Auth schemes (docs/auth.md):
 * - `none`: public.
 * - `jwt`: a user token with organization context (path `:orgId`, X-Organization-Id or the only one).
 * - `jwt_user`: a user token without organization context (the caller's own resources).
 * - `read`: a JWT, a full-scope key, or a public key on reads (the spec's "JWT or API key").
 * - `api_key`: a full or public key (key introspection).
 * - `full_key`: a full-scope key (proxy, ingest, OTLP).
 */
export type AuthScheme = 'none' | 'jwt' | 'jwt_user' | 'read' | 'api_key' | 'full_key';

/** The organization and the projects a call may touch (an API key: its own project only). */
export interface Scope {
  orgId: string;
  projectIds: string[];
}

/**
 * What the handler is scoped to, resolved before it runs:
 * - `project`: the caller's projects, narrowed to `project_id` (query, else body) when one is given;
 *   a project the caller cannot see is a 404.
 * - `organization`: every project of the caller's organization; `project_id` is not read.
 */
export type ScopeKind = 'project' | 'organization';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type AnyObject = z.ZodObject<z.ZodRawShape>;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

interface Call<P, Q, B, H, S> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  /** The contract's `headers`, by the names it declares (absent ones undefined). */
  headers: Out<H>;
  /** Set on every authenticated scheme; `undefined` only with `auth: 'none'`. */
  principal: Principal;
  /** Resolved from the contract's `scope`; `undefined` when the contract declares none. */
  scope: S extends ScopeKind ? Scope : undefined;
  req: Request;
  res: Response;
}

/** A successful answer with a status other than the contract's default, or extra headers. */
export class Reply<T = unknown> {
  constructor(
    readonly status: number,
    readonly data: T,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** The answer of a create-or-replace (PUT-style upsert): 201 when it created, 200 when it replaced. */
export const upserted = <T>(out: { created: boolean; row: T }) => new Reply(out.created ? 201 : 200, out.row);

/** A page of a keyset-paginated list: `{ success, data: items, next_cursor }`. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** How the response body is shaped. */
type Envelope =
  /** `{ success: true, data }` (the default). */
  | 'data'
  /** `{ success: true, data: [...], next_cursor }`; the handler returns a Page. */
  | 'page'
  /** The handler writes the response itself (proxy passthrough, OTLP protobuf, health). */
  | 'raw';

interface RawResponseDoc {
  description: string;
  /** One content type, or several (a static file route). Default application/json. */
  contentType?: string | string[];
  schema?: z.ZodType;
  example?: unknown;
}

export interface RouteContract<
  P extends AnyObject | undefined = AnyObject | undefined,
  Q extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  H extends AnyObject | undefined = AnyObject | undefined,
  S extends ScopeKind | undefined = ScopeKind | undefined,
> {
  method: Method;
  /** Express path syntax (`/api/v1/webhooks/:id`, `/proxy/:provider/*rest`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: AuthScheme;
  /** With `jwt`/`read`: roles a user needs (API keys never have one: 403). */
  roles?: readonly Role[];
  /** With `read`: a full-scope key or a user with role admin/editor (evals-style writes). */
  write?: boolean;
  /** Resolve the caller's scope before the handler (after validation): see ScopeKind. */
  scope?: S;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the route reads, by their documented name (`Idempotency-Key`); 400 when invalid. */
  headers?: H;
  /** Name used in the 404 when a path parameter is malformed ("Webhook not found"). */
  notFound?: string;
  /** Success status (default 200). */
  status?: number;
  /** Other success statuses a handler may answer with through `Reply` (e.g. 207), documented. */
  otherStatuses?: Record<number, string>;
  envelope?: Envelope;
  /** The `data` of a `data`/`page` envelope (the item schema for pages). */
  response?: z.ZodType;
  /** With `raw`: the documented success responses by status. */
  rawResponses?: Record<number, RawResponseDoc>;
  /** Documented request content types of a raw body (default application/json when `body` is set). */
  requestContentTypes?: string[];
  /** Mounted before the app-wide JSON parser (the route parses its own body, or none). */
  rawBody?: boolean;
  /** Dispatched ahead of Express's router (src/http/fast-path.ts): the proxy's hot path. */
  fastPath?: boolean;
  /** Middleware between auth and validation (ingest's own body parser, Gemini's ?key=). */
  before?: RequestHandler[];
  /** Middleware that replaces the default auth middleware (the proxy's memoised key check). */
  authenticate?: RequestHandler;
  /**
   * The body of this route's errors when it is not the REST envelope (OTLP answers google.rpc.Status):
   * documented by `schema`, written by `send` for every error of the route's chain (auth, body
   * parsing, handler), after the shared mapping to an HttpError; its headers are already set.
   */
  errorBody?: {
    contentTypes: string[];
    schema: z.ZodType;
    example: unknown;
    send: (err: HttpError, req: Request, res: Response) => void;
  };
  /** Extra documented error statuses beyond those the scheme implies. */
  errors?: Record<number, string>;
  /** An example of `data` for the document (one is generated from the schema when absent). */
  example?: unknown;
  handler: (call: Call<P, Q, B, H, S>) => Promise<unknown> | unknown;
}

/** Declares a route; the generic parameters make the handler's input typed by the schemas. */
export function route<
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  H extends AnyObject | undefined = undefined,
  S extends ScopeKind | undefined = undefined,
>(contract: RouteContract<P, Q, B, H, S>): RouteContract {
  return contract as unknown as RouteContract;
}

/** `:id` and `*rest` in Express paths → `{id}` and `{rest}` in OpenAPI paths. */
export const openApiPath = (path: string) => path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

export const pathParamNames = (path: string) => [...path.matchAll(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
