import express from 'express';
import pino from 'pino';
import { HttpError } from '../../src/http/errors';
import { errorHandler, notFoundHandler, requestContext } from '../../src/http/middleware';
import { createDb, type Db } from '../../src/db/knex';
import { listen, type RunningServer } from '../../src/server';
import { startTestApp, type TestApp } from '../helpers/app';
import { TEST_PG_URL } from '../helpers/env';

describe('HTTP conventions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { JSON_BODY_LIMIT: '1kb' } });
  });
  afterAll(() => app.stop());

  const post = (path: string, body: string, type = 'application/json') =>
    fetch(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

  it('answers unknown routes with a 404 JSON envelope', async () => {
    const res = await fetch(`${app.url}/api/v1/does-not-exist`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      success: false,
      error: 'No route for GET /api/v1/does-not-exist',
      code: 'route_not_found',
    });
  });

  it('answers malformed JSON with 400 invalid_json, not 500', async () => {
    const res = await post('/api/v1/anything', '{"name": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, code: 'invalid_json' });
  });

  it('answers bodies over the limit with 413', async () => {
    const res = await post('/api/v1/anything', JSON.stringify({ x: 'a'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ success: false, code: 'payload_too_large' });
  });

  it('generates a request id when the caller sends none or a malformed one', async () => {
    const a = await fetch(`${app.url}/health`);
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const b = await fetch(`${app.url}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('error handler', () => {
  let server: RunningServer;
  let db: Db;
  const warnings: { msg: string; sqlstate?: string }[] = [];
  beforeAll(async () => {
    // The shared middleware chain every router runs behind, with probe routes that fail on purpose.
    const app = express();
    app.use(requestContext(pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) })));
    // Real PostgreSQL refusals, as a route whose contract let a bad value through would meet them.
    db = createDb(TEST_PG_URL, 2);
    const cast = (sql: string, value: string | number) => async (_req: express.Request, res: express.Response) =>
      res.json(await db.raw(sql, [value]));
    app.get('/pg/uuid', cast('select ?::uuid as v', 'not-a-uuid'));
    app.get('/pg/date', cast('select ?::timestamptz as v', '-200000-01-01T00:00:00Z'));
    app.get('/pg/year0', cast('select ?::timestamptz as v', '0000-01-01T00:00:00Z'));
    app.get('/pg/number', cast('select ?::smallint as v', '70000'));
    app.get('/pg/table', cast('select * from no_such_table where id = ?', 1));
    app.get('/boom', () => {
      throw new Error('secret internal detail');
    });
    app.get('/teapot', () => {
      throw new HttpError(418, 'teapot', 'I am a teapot', { hint: 'brew' }, { 'retry-after': '3' });
    });
    app.get('/async', async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new HttpError(409, 'conflict', 'Already there');
    });
    app.use(notFoundHandler);
    app.use(errorHandler);
    server = await listen(app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
    await db.destroy();
  });

  it.each([
    ['/pg/uuid', '22P02', /UUID/],
    ['/pg/date', '22009', /date or time/],
    ['/pg/year0', '22008', /date or time/],
    ['/pg/number', '22003', /number/],
  ])(
    'maps PostgreSQL data exception %s to a 400 invalid_input without SQL, logged at warn',
    async (path, sqlstate, message) => {
      const res = await fetch(`${server.url}${path}`);
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(JSON.parse(text)).toEqual({
        success: false,
        error: expect.stringMatching(message),
        code: 'invalid_input',
      });
      expect(text).not.toMatch(/select|::|not-a-uuid|200000|0000-01|70000/i);
      expect(warnings).toContainEqual(
        expect.objectContaining({ sqlstate, msg: 'database refused input the route contract accepted' }),
      );
    },
  );

  it('keeps other database errors a 500 without internals', async () => {
    const res = await fetch(`${server.url}/pg/table`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ success: false, error: 'Internal server error', code: 'internal_error' });
  });

  it('turns unexpected errors into a 500 without internals', async () => {
    const res = await fetch(`${server.url}/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ success: false, error: 'Internal server error', code: 'internal_error' });
    expect(text).not.toMatch(/secret internal detail|\bat /);
  });

  it('renders HttpError status, code, details and headers', async () => {
    const res = await fetch(`${server.url}/teapot`);
    expect(res.status).toBe(418);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toEqual({ success: false, error: 'I am a teapot', code: 'teapot', hint: 'brew' });
  });

  it('catches errors thrown by async handlers', async () => {
    const res = await fetch(`${server.url}/async`);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ success: false, error: 'Already there', code: 'conflict' });
  });
});
