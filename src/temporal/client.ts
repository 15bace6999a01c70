import type { Client, Connection } from '@temporalio/client';
import { indexedValueType, searchAttributes } from './names';

type TemporalSdk = typeof import('@temporalio/client');

/**
 * The client SDK, loaded on first use: with its protos and gRPC it is ~12 MB of heap that a process
 * never calling Temporal (an api replica serving only the proxy) need not hold. Whoever holds a Client
 * has it loaded already, so this is a cache hit for them.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
export const temporalSdk = (): TemporalSdk => require('@temporalio/client') as TemporalSdk;

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

/**
 * One shared connection and client per process. Lazy (the api): the SDK is loaded and the connection
 * made on first use (`Connection.lazy` then dials on the first call), so the api starts while Temporal
 * is down and a proxy-only process never loads the SDK.
 */
export async function createTemporal(settings: TemporalSettings, opts: { lazy?: boolean } = {}): Promise<Temporal> {
  if (!opts.lazy) {
    const { Client, Connection } = temporalSdk();
    const connection = await Connection.connect({ address: settings.address, connectTimeout: 5_000 });
    const client = new Client({ connection, namespace: settings.namespace });
    return { connection, client, settings, close: () => connection.close() };
  }
  let made: { connection: Connection; client: Client } | undefined;
  const make = () => {
    if (made) return made;
    const { Client, Connection } = temporalSdk();
    const connection = Connection.lazy({ address: settings.address, connectTimeout: 2_000 });
    return (made = { connection, client: new Client({ connection, namespace: settings.namespace }) });
  };
  return {
    get connection() {
      return make().connection;
    },
    get client() {
      return make().client;
    },
    settings,
    close: async () => made?.connection.close(),
  };
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
