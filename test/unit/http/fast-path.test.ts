import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { request } from 'undici';
import { withFastPath } from '../../../src/http/fast-path';
import type { RouteContract } from '../../../src/http/route';

/** The proxy's shortcut past Express's router: same answers, same error handler, Express for the rest. */
describe('withFastPath', () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    const app = express();
    const context: RequestHandler = (_req, res, next) => {
      res.setHeader('x-context', 'yes');
      next();
    };
    app.use(context);
    // Marks everything that reached Express's router.
    app.use((req, _res, next) => {
      seen.push(`express ${req.method} ${req.originalUrl}`);
      next();
    });
    const handler: RequestHandler = (req, res) => {
      const p = req.params as unknown as { provider: string; rest: string[] };
      if (p.provider === 'throws') throw Object.assign(new Error('boom'), { status: 418 });
      if (p.provider === 'rejects') return Promise.reject(Object.assign(new Error('later'), { status: 409 })) as never;
      res.status(200).json({ provider: p.provider, rest: p.rest, url: req.originalUrl, query: req.query });
    };
    app.post('/proxy/:provider/*rest', handler);
    app.head('/proxy/:provider/*rest', (_req, res) => void res.status(204).end());
    const onError: ErrorRequestHandler = (err: { status?: number; message: string }, _req, res, _next) => {
      res.status(err.status ?? 500).json({ success: false, error: err.message });
    };
    app.use(onError);
    const contract = { method: 'post', path: '/proxy/:provider/*rest' } as RouteContract;
    const fastMark: RequestHandler = (req, _res, next) => {
      seen.push(`fast ${req.method} ${req.originalUrl}`);
      next();
    };
    server = http.createServer(withFastPath(app, [{ contract, chain: [fastMark, handler] }], [context], onError));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => (seen.length = 0));

  const post = async (path: string, method: 'POST' | 'HEAD' = 'POST') => {
    const res = await request(`${base}${path}`, { method, body: method === 'POST' ? '{}' : undefined });
    const text = await res.body.text();
    const json = String(res.headers['content-type']).includes('json');
    return { status: res.statusCode, headers: res.headers, body: json ? JSON.parse(text) : text };
  };

  it('serves a plain path without the router, with the same params, query and app middleware', async () => {
    const r = await post('/proxy/openai/v1/chat/completions?a=1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      provider: 'openai',
      rest: ['v1', 'chat', 'completions'],
      url: '/proxy/openai/v1/chat/completions?a=1',
      query: { a: '1' },
    });
    expect(r.headers['x-context']).toBe('yes');
    expect(seen).toEqual(['fast POST /proxy/openai/v1/chat/completions?a=1']);
  });

  it('hands thrown and rejected errors to the app error handler', async () => {
    expect(await post('/proxy/throws/x')).toMatchObject({ status: 418, body: { success: false, error: 'boom' } });
    expect(await post('/proxy/rejects/x')).toMatchObject({ status: 409, body: { success: false, error: 'later' } });
    expect(seen.every((s) => s.startsWith('fast'))).toBe(true);
  });

  it('leaves what it is not sure about to Express: encoded segments, other methods, no rest, other case', async () => {
    const encoded = await post('/proxy/open%61i/v1/x');
    expect(encoded.body).toMatchObject({ provider: 'openai' });
    expect((await post('/proxy/openai/v1/x', 'HEAD')).status).toBe(204);
    expect((await post('/PROXY/openai/v1/x')).body).toMatchObject({ provider: 'openai' });
    await post('/proxy/openai/');
    await post('/proxy/openai/?x=1');
    expect(seen).toEqual([
      'express POST /proxy/open%61i/v1/x',
      'express HEAD /proxy/openai/v1/x',
      'express POST /PROXY/openai/v1/x',
      'express POST /proxy/openai/',
      'express POST /proxy/openai/?x=1',
    ]);
  });
});

/** With the listener's server options, requests and responses are Express's from birth, on both paths. */
describe('withFastPath serverOptions', () => {
  it('builds requests and responses with the app prototypes, which the handlers and the router keep', async () => {
    const app = express();
    const protos: string[] = [];
    const which = (req: object, res: object) =>
      `${Object.getPrototypeOf(req) === app.request} ${Object.getPrototypeOf(res) === app.response}`;
    const handler: RequestHandler = (req, res) => {
      protos.push(`handler ${which(req, res)} ${req instanceof http.IncomingMessage}`);
      res.status(200).json({ path: req.path, ip: typeof req.ip });
    };
    app.post('/proxy/:provider/*rest', handler);
    app.get('/other', handler);
    const contract = { method: 'post', path: '/proxy/:provider/*rest' } as RouteContract;
    const listener = withFastPath(app, [{ contract, chain: [handler] }], [], (_e, _q, res) => res.status(500).end());
    const server = http.createServer(listener.serverOptions!, listener);
    server.prependListener('request', (req, res) => protos.push(`born ${which(req, res)}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const fast = await request(`${base}/proxy/openai/v1/x`, { method: 'POST', body: '{}' });
      expect(await fast.body.json()).toEqual({ path: '/proxy/openai/v1/x', ip: 'string' });
      const routed = await request(`${base}/other`);
      expect(await routed.body.json()).toEqual({ path: '/other', ip: 'string' });
      expect(protos).toEqual(['born true true', 'handler true true true', 'born true true', 'handler true true true']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
