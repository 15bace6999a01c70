import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { GatewayClient, type IngestError } from '../../src';

/** A request as the fake gateway saw it. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** performance.now() when the request arrived. */
  at: number;
}

/** How the fake gateway answers one request. */
export type Reply =
  | { status: number; body?: unknown }
  | 'ok' // what the real gateway does on success
  | 'destroy' // drop the connection without answering
  | 'hang'; // never answer

export type Handler = (req: Received, n: number) => Reply | Promise<Reply>;

export interface FakeGateway {
  url: string;
  requests: Received[];
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

/** A fault-injecting stand-in for the gateway's ingest API on 127.0.0.1. */
export async function startFakeGateway(handler: Handler = () => 'ok'): Promise<FakeGateway> {
  let current = handler;
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const received: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
        at: performance.now(),
      };
      requests.push(received);
      const reply = await current(received, requests.length);
      if (reply === 'hang') return;
      if (reply === 'destroy') {
        req.socket.destroy();
        return;
      }
      const { status, body } = reply === 'ok' ? successFor(received) : reply;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler(h) {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The success answer of the real API for a request. */
export function successFor(req: { path: string; body: any }): { status: number; body: unknown } {
  if (req.path === '/ingest/batch') {
    const ops: Array<{ id: string; op: string }> = req.body?.operations ?? [];
    return {
      status: 207,
      body: {
        success: true,
        data: { results: ops.map((o, index) => ({ index, id: o.id, status: o.op.endsWith('.create') ? 201 : 200 })) },
      },
    };
  }
  return { status: 201, body: { success: true, data: req.body } };
}

/** One ingest operation as it went over the wire, whichever transport carried it. */
export interface WireOp {
  op: 'trace.create' | 'trace.update' | 'span.create' | 'span.update';
  id: string;
  body: any;
}

/** Flattens batch and single requests into the operations they carried, in order. */
export function wireOps(requests: ReadonlyArray<{ method: string; path: string; body: any }>): WireOp[] {
  const out: WireOp[] = [];
  for (const r of requests) {
    if (r.path === '/ingest/batch') {
      out.push(...(r.body.operations as WireOp[]));
    } else if (r.method === 'POST' && r.path === '/ingest/traces') {
      out.push({ op: 'trace.create', id: r.body.id, body: r.body });
    } else if (r.method === 'POST' && r.path === '/ingest/spans') {
      out.push({ op: 'span.create', id: r.body.id, body: r.body });
    } else if (r.method === 'PATCH' && r.path.startsWith('/ingest/traces/')) {
      out.push({ op: 'trace.update', id: decodeURIComponent(r.path.slice('/ingest/traces/'.length)), body: r.body });
    } else if (r.method === 'PATCH' && r.path.startsWith('/ingest/spans/')) {
      out.push({ op: 'span.update', id: decodeURIComponent(r.path.slice('/ingest/spans/'.length)), body: r.body });
    } else {
      throw new Error(`unexpected request ${r.method} ${r.path}`);
    }
  }
  return out;
}

/**
 * An in-process fetch that answers like the gateway, for tests that need many requests
 * and no sockets. `requests` uses the same shape as the fake server's.
 */
export function recordingFetch(reply?: (req: Received) => { status: number; body?: unknown }) {
  const requests: Received[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const req: Received = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      headers: Object.fromEntries(
        Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      ),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      at: performance.now(),
    };
    requests.push(req);
    const { status, body } = reply ? reply(req) : successFor(req);
    return new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

export const API_KEY = 'sl_live_test_key_123';

/** An ISO 8601 timestamp in UTC with milliseconds, as the client writes them. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A client on `recordingFetch` that flushes on demand and collects what `onError` reports. */
export function recordedClient(extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
  const rec = recordingFetch();
  const errors: Array<{ err: IngestError; op: string }> = [];
  const c = new GatewayClient({
    baseUrl: 'http://gw.test/',
    apiKey: API_KEY,
    fetch: rec.fetch,
    flushIntervalMs: 0,
    onError: (err, op) => errors.push({ err, op }),
    ...extra,
  });
  const ops = () => wireOps(rec.requests);
  return { c, rec, errors, ops };
}
