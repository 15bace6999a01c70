import { z } from 'zod';
import type { Format } from './service';

/** The OTLP/HTTP contracts: content types, the export response, google.rpc.Status and its codes. */
export const CONTENT_TYPES: Record<Format, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** ExportTraceServiceResponse as JSON (protobuf carries the same fields). */
export const exportResponseSchema = z.object({
  partialSuccess: z
    .object({ rejectedSpans: z.union([z.number(), z.string()]), errorMessage: z.string() })
    .partial()
    .optional(),
});

/** google.rpc.Status, the body of every OTLP refusal. */
export const rpcStatusSchema = z
  .object({ code: z.number().int(), message: z.string(), details: z.array(z.unknown()).optional() })
  .meta({ id: 'RpcStatus', description: 'google.rpc.Status' });

/** HTTP status → google.rpc.Code, for the Status body OTLP clients read. */
export function grpcCode(status: number): number {
  if (status === 400 || status === 413 || status === 415) return 3; // INVALID_ARGUMENT
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 404) return 5; // NOT_FOUND
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  return 13; // INTERNAL
}
