import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';

const DIST = path.resolve(__dirname, '../../web/dist');

/** The api serves the built dashboard at / (npm test builds web/ first) without shadowing any API path. */
describe('dashboard serving and GET /api/v1/ui-config', () => {
  let app: TestApp;
  let oidc: TestApp;
  beforeAll(async () => {
    [app, oidc] = await Promise.all([
      startTestApp({ role: 'api', env: { WEB_DIR: DIST } }),
      startTestApp({
        role: 'api',
        env: {
          WEB_DIR: DIST,
          UI_OIDC_ISSUER: 'https://idp.example.test',
          UI_OIDC_CLIENT_ID: 'web',
          TEMPORAL_UI_URL: 'https://temporal.example.test',
        },
      }),
    ]);
  });
  afterAll(async () => Promise.all([app?.stop(), oidc?.stop()]));

  it('answers how to sign in and where the Temporal UI is, without credentials', async () => {
    expect(((await (await fetch(`${app.url}/api/v1/ui-config`)).json()) as { data: unknown }).data).toEqual({
      oidc: null,
      temporal_ui_url: null,
    });
    expect(((await (await fetch(`${oidc.url}/api/v1/ui-config`)).json()) as { data: unknown }).data).toEqual({
      oidc: { issuer: 'https://idp.example.test', client_id: 'web', scope: 'openid email profile' },
      temporal_ui_url: 'https://temporal.example.test',
    });
  });

  it('serves index.html uncached for app URLs and hashed assets cached for a year', async () => {
    for (const p of ['/', '/requests?model=gpt-4o', '/traces/abc']) {
      const r = await fetch(`${app.url}${p}`, { headers: { accept: 'text/html' } });
      expect([r.status, r.headers.get('content-type'), r.headers.get('cache-control')]).toEqual([
        200,
        'text/html; charset=utf-8',
        'no-cache',
      ]);
      expect(await r.text()).toContain('<div id="root"></div>');
    }
    const js = (await readdir(path.join(DIST, 'assets'))).find((f) => f.endsWith('.js'))!;
    const a = await fetch(`${app.url}/assets/${js}`);
    expect([a.status, a.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect((await fetch(`${app.url}/assets/missing.js`)).status).toBe(404);
  });

  it('leaves the API, proxy, ingest and OTLP paths alone', async () => {
    for (const p of ['/api/v1/nope', '/proxy/nope/x', '/ingest/nope', '/v1/nope']) {
      const r = await fetch(`${app.url}${p}`, { headers: { accept: 'text/html' } });
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(r.status).not.toBe(200);
    }
    const json = await fetch(`${app.url}/requests`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404); // a JSON client asking a non-API path gets the API's 404
  });

  it('gives the app only to an Accept that names text/html; */* (curl, fetch) gets the 404 envelope', async () => {
    for (const accept of ['*/*', 'application/json, */*', 'text/*', 'text/html;q=0', '']) {
      const r = await fetch(`${app.url}/no-such-route`, { headers: accept ? { accept } : {} });
      expect([accept, r.status, r.headers.get('content-type')]).toEqual([
        accept,
        404,
        'application/json; charset=utf-8',
      ]);
      expect(await r.json()).toMatchObject({ success: false, code: 'route_not_found' });
    }
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
    const page = await fetch(`${app.url}/no-such-route`, { headers: { accept: browser } });
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  });
});
