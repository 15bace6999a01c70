import type { Principal } from '../../auth/principal';
import { HttpError } from '../../http/errors';
import type { IngestService } from '../service';
import { decodeJson, decodeProtobuf, OtlpDecodeError, type ExportTraceServiceRequest } from './decode';
import { mapExportRequest } from './map';

/**
 * One OTLP export request: decoded, mapped to ingest operations, submitted; the spans refused (as
 * invalid, or by the database) are counted for the response's partial_success.
 */
export type Format = 'protobuf' | 'json';

export interface ExportOutcome {
  response: { partialSuccess?: { rejectedSpans: number; errorMessage: string } };
  rejected: number;
  accepted: number;
  errors: string[];
}

export async function receiveExport(
  ingest: IngestService,
  principal: Principal,
  format: Format,
  body: Buffer,
): Promise<ExportOutcome> {
  let message: ExportTraceServiceRequest;
  try {
    message = format === 'protobuf' ? decodeProtobuf(body) : decodeJson(body);
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw new HttpError(400, 'invalid_otlp', err.message);
    throw err;
  }
  const mapped = mapExportRequest(message, ingest.limits.maxFieldBytes);
  if (mapped.rejected) ingest.countRefused('span.create', 'otlp', mapped.rejected);
  const results = await ingest.submit(principal, 'otlp', mapped.ops);
  // Spans the database refused (rare: validated already) are reported like invalid ones.
  let refused = 0;
  mapped.ops.forEach((op, i) => {
    if (op.op === 'span.create' && results[i] && !results[i]!.ok) refused++;
  });
  const rejected = mapped.rejected + refused;
  const errors = refused ? [...mapped.errors, 'the database refused some spans'] : mapped.errors;
  const response = rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage: errors.join('; ') } } : {};
  return { response, rejected, accepted: mapped.accepted - refused, errors };
}
