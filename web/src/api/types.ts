import type { components, paths } from './schema';

/** Named shapes of the API, for props and helpers: `Schema<'RequestRecord'>`. */
export type Schema<K extends keyof components['schemas']> = components['schemas'][K];

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Ok<O> = O extends { responses: infer R }
  ? 200 extends keyof R
    ? Json<R[200]>
    : 201 extends keyof R
      ? Json<R[201]>
      : never
  : never;

/** The `data` of a GET: `Got<'/api/v1/stats'>`. */
export type Got<P extends keyof paths> = paths[P] extends { get: infer O }
  ? Ok<O> extends { data: infer D }
    ? D
    : never
  : never;

/** The query parameters of a GET. */
export type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;

export type Role = Schema<'Member'>['role'];
