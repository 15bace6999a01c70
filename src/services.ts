import type { AppContext } from './context';
import { createIngestService, type IngestService } from './ingest/service';

/**
 * The feature services of the api role, built once per runtime from the shared context and handed
 * to the routes (src/routes.ts). Tests reach them through `runtime.services`.
 */
export interface Services {
  /** The ingest batch writer shared by /ingest/* and /v1/traces. */
  ingest: IngestService;
}

export function buildServices(ctx: AppContext): Services {
  return { ingest: createIngestService(ctx) };
}
