import type Ajv from 'ajv';

/**
 * A JSON Schema validator for evaluators, its library loaded on first use: only requests that check a
 * json_schema evaluator need it, so an api serving the proxy never holds it (~1 MB of heap).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
export const newAjv = (): Ajv => new (require('ajv') as typeof import('ajv').default)({ strict: false });

/** `deps` with an `ajv` made on first read (route and activity dependencies built at start). */
export function withLazyAjv<T extends object>(deps: T): T & { readonly ajv: Ajv } {
  let ajv: Ajv | undefined;
  return Object.defineProperty({ ...deps }, 'ajv', { get: () => (ajv ??= newAjv()), enumerable: true }) as T & {
    readonly ajv: Ajv;
  };
}
