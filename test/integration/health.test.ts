import { startTestApp, type TestApp } from '../helpers/app';

describe('GET /health', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
  });
  afterAll(() => app.stop());

  it('answers 200 with db and temporal ok when both are reachable', async () => {
    const res = await fetch(`${app.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ status: 'ok', db: 'ok', temporal: 'ok' });
  });

  it('needs no authentication and carries a request id', async () => {
    const res = await fetch(`${app.url}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
  });
});
