import { startTestApp, type TestApp } from '../helpers/app';
import { openApiPath } from '../../src/http/route';
import { buildRoutes } from '../../src/routes';

/**
 * The OpenAPI document covers every mounted route with its auth scheme, error responses and
 * examples, validates as OpenAPI 3.1, and the reference page renders from the api itself.
 */
/** The parts of the document these tests read. */
interface Operation {
  'x-auth'?: string;
  security: unknown[];
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}
type OpenApiDoc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
};

describe('OpenAPI document and reference page', () => {
  let app: TestApp;
  let doc: OpenApiDoc;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    const res = await fetch(`${app.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApiDoc;
  });
  afterAll(() => app?.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc);
    if (!result.valid) throw new Error(JSON.stringify(result.errors, null, 2).slice(0, 4000));
    expect(result.valid).toBe(true);
  });

  it('documents every mounted route with auth, errors and examples', () => {
    const routes = buildRoutes(app.runtime.ctx, app.runtime.services!);
    expect(routes.length).toBeGreaterThan(3);
    for (const r of routes) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method];
      expect({ route: `${r.method} ${r.path}`, documented: !!op }).toEqual({
        route: `${r.method} ${r.path}`,
        documented: true,
      });
      expect(op['x-auth']).toBe(r.auth);
      expect(Array.isArray(op.security)).toBe(true);
      if (r.auth !== 'none') expect(op.security.length).toBeGreaterThan(0);
      const statuses = Object.keys(op.responses);
      expect(statuses.some((s) => s.startsWith('2'))).toBe(true);
      expect(statuses).toContain('500');
      if (r.auth !== 'none') expect(statuses).toEqual(expect.arrayContaining(['401']));
      for (const [status, res] of Object.entries(op.responses)) {
        for (const media of Object.values(res.content ?? {})) {
          expect({ route: `${r.method} ${r.path} ${status}`, example: media.example !== undefined }).toEqual({
            route: `${r.method} ${r.path} ${status}`,
            example: true,
          });
        }
      }
    }
  });

  it('lists no path that is not mounted', () => {
    const mounted = new Set(
      buildRoutes(app.runtime.ctx, app.runtime.services!).map((r) => `${r.method} ${openApiPath(r.path)}`),
    );
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect(documented.filter((d) => !mounted.has(d))).toEqual([]);
  });

  it('serves the reference page and its assets from the api', async () => {
    const page = await fetch(`${app.url}/api/v1/reference`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const a of assets) {
      const res = await fetch(`${app.url}${a}`);
      expect({ a, status: res.status }).toEqual({ a, status: 200 });
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10);
    }
    const init = await (await fetch(`${app.url}/api/v1/reference/init.js`)).text();
    expect(init).toContain('/api/v1/openapi.json');
    expect((await fetch(`${app.url}/api/v1/reference/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
