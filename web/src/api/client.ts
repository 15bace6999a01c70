import createClient, { type Middleware } from 'openapi-fetch';
import type { SessionStore } from '../session/store';
import type { paths } from './schema';

/**
 * The REST API, typed from the OpenAPI document the service generates (schema.d.ts, written by
 * `npm run web:api`): a path, parameter or field the API lacks is a compile error here.
 */
export type Api = ReturnType<typeof createClient<paths>>;

/** A failed call: the API's error envelope (`{ success: false, error, code }`) or a network error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Every request carries the session as it is when the request leaves, never a copy from a render. */
function sessionHeaders(session: SessionStore): Middleware {
  return {
    onRequest({ request }) {
      const { token, orgId } = session.get();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      if (orgId) request.headers.set('x-organization-id', orgId);
      return request;
    },
  };
}

export function createApi(session: SessionStore): Api {
  const api = createClient<paths>({ baseUrl: location.origin });
  api.use(sessionHeaders(session));
  return api;
}

const field = (e: unknown, k: string): string | undefined => {
  if (typeof e !== 'object' || e === null || !(k in e)) return undefined;
  const v = (e as Record<string, unknown>)[k];
  return typeof v === 'string' ? v : undefined;
};

/** What openapi-fetch answers: `data` on success, `error` (the parsed error body) otherwise. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The envelope's `data`, or an ApiError: `await unwrap(api.GET('/api/v1/projects'))`. */
export async function unwrap<T extends { data: unknown }>(call: Promise<Answer<T>>): Promise<T['data']> {
  const { data, error, response } = await call;
  if (data === undefined || error !== undefined)
    throw new ApiError(
      response.status,
      field(error, 'code') ?? 'error',
      field(error, 'error') ?? `HTTP ${response.status}`,
    );
  return data.data;
}

/** A keyset page: its rows and the cursor of the next page (null on the last). */
export async function unwrapPage<T extends { data: unknown[]; next_cursor: string | null }>(
  call: Promise<Answer<T>>,
): Promise<Pick<T, 'data' | 'next_cursor'>> {
  const { data, error, response } = await call;
  if (data === undefined || error !== undefined)
    throw new ApiError(
      response.status,
      field(error, 'code') ?? 'error',
      field(error, 'error') ?? `HTTP ${response.status}`,
    );
  return { data: data.data, next_cursor: data.next_cursor };
}
