import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The one UUID check of the service. */
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);

/** A UUID in a body or query, normalised to lower case. */
export const uuidSchema = z
  .string()
  .regex(UUID, 'must be a UUID')
  .transform((s) => s.toLowerCase())
  .meta({ format: 'uuid', example: '3f2b6c1e-8a4d-4c1b-9f0e-2d7a5b8c9e10' });

/** Path parameters `{ [name]: uuid }`; a malformed one answers the route's 404, never a 400 or 500. */
export const uuidParams = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((n) => [n, uuidSchema])) as Record<K, typeof uuidSchema>);
