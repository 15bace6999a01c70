import { z } from 'zod';
import { INPUT_CHECK } from './schemas';

const UUID_BODY = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID = new RegExp(`^${UUID_BODY}$`, 'i');

/** The one UUID check of the service. */
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);

/**
 * A UUID in a body or query, normalised to lower case. Every field that reaches a `uuid` column
 * uses it (or `uuidListSchema`): anything else would be PostgreSQL's 22P02, not the contract's 400.
 */
export const uuidSchema = z
  .string()
  .regex(UUID, 'must be a UUID')
  .transform((s) => s.toLowerCase())
  .meta({ format: 'uuid', example: '3f2b6c1e-8a4d-4c1b-9f0e-2d7a5b8c9e10', [INPUT_CHECK]: 'uuid' });

/** `a,b[,…]`: between `min` and `max` comma-separated UUIDs, normalised to lower case. */
export const uuidListSchema = (min: number, max: number) =>
  z
    .string()
    .regex(
      new RegExp(`^${UUID_BODY}(,${UUID_BODY}){${min - 1},${max - 1}}$`, 'i'),
      `must be ${min} to ${max} UUIDs, comma-separated`,
    )
    .transform((s) => s.toLowerCase())
    .meta({
      example: '3f2b6c1e-8a4d-4c1b-9f0e-2d7a5b8c9e10,7d0c1a2b-3e4f-4a5b-8c6d-9e0f1a2b3c4d',
      [INPUT_CHECK]: 'uuid-list',
    });

/** Path parameters `{ [name]: uuid }`; a malformed one answers the route's 404, never a 400 or 500. */
export const uuidParams = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((n) => [n, uuidSchema])) as Record<K, typeof uuidSchema>);
