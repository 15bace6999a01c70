import type { Request } from 'express';
import type { z } from 'zod';
import { validationError } from './errors';

/** Parses part of a request with the one schema that also documents it. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params' | string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

export const parseBody = <S extends z.ZodType>(schema: S, req: Request) => parse(schema, req.body, 'body');
export const parseQuery = <S extends z.ZodType>(schema: S, req: Request) => parse(schema, req.query, 'query');
export const parseParams = <S extends z.ZodType>(schema: S, req: Request) => parse(schema, req.params, 'params');
