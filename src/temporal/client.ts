import { Client, Connection } from '@temporalio/client';
import { indexedValueType, searchAttributes } from './names';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

export interface Temporal {
  connection: Connection;
  client: Client;
  settings: TemporalSettings;
  close(): Promise<void>;
}

/** One shared connection and client per process. `Connection.lazy` lets the api start while Temporal is down. */
export async function createTemporal(settings: TemporalSettings, opts: { lazy?: boolean } = {}): Promise<Temporal> {
  const connection = opts.lazy
    ? Connection.lazy({ address: settings.address, connectTimeout: 2_000 })
    : await Connection.connect({ address: settings.address, connectTimeout: 5_000 });
  const client = new Client({ connection, namespace: settings.namespace });
  return { connection, client, settings, close: () => connection.close() };
}

/** A cheap round trip that proves the frontend answers for our namespace. */
export async function pingTemporal(t: Temporal, timeoutMs = 2_000): Promise<void> {
  await t.connection.withDeadline(Date.now() + timeoutMs, () =>
    t.connection.workflowService.describeNamespace({ namespace: t.settings.namespace }),
  );
}

/**
 * Registers our custom search attributes on a server we did not start (the compose stack, the
 * time-skipping test server). The dev server gets them as start flags instead.
 */
export async function registerSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<void> {
  // The time-skipping test server can add search attributes but not list them (gRPC 12, UNIMPLEMENTED).
  const existing = await connection.operatorService
    .listSearchAttributes({ namespace })
    .catch((err: { code?: number }) => {
      if (err.code === 12) return { customAttributes: {} };
      throw err;
    });
  const missing = Object.values(searchAttributes).filter((a) => !(a.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((a) => [a.name, indexedValueType[a.type]])),
  });
}

export const ensureSearchAttributes = (t: Temporal): Promise<void> =>
  registerSearchAttributes(t.connection, t.settings.namespace);
