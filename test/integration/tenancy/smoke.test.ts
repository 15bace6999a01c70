import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant } from '../../helpers/auth';

describe('tenancy smoke: seedTenant through the real API', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
  });
  afterAll(() => app.stop());

  it('creates org, project, members and keys; keys introspect', async () => {
    const t = await seedTenant(app);
    const info = await api(app, 'GET', '/api/v1/me/key-info', { token: t.fullKey });
    expect(info.status).toBe(200);
    expect(info.body.data).toMatchObject({
      scope: 'full',
      status: 'active',
      project: { id: t.projectId },
      organization: { id: t.orgId },
    });
    const pub = await api(app, 'GET', '/api/v1/me/key-info', { token: t.publicKey });
    expect(pub.body.data.scope).toBe('public');
    const revoked = await api(app, 'GET', '/api/v1/me/key-info', { token: t.revokedKey });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('api_key_revoked');
  });
});
