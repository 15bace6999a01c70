import { hashApiKey } from '../../../src/auth/api-keys';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

/** API keys (provider keys are in provider-keys.test.ts). */
describe('API keys and provider keys', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  const as = () => ({ token: t.admin.token, orgId: t.orgId });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
  });
  afterAll(() => app.stop());

  describe('API keys', () => {
    it(
      'returns the full key once; stores only its SHA-256; ' + 'lists prefix, last4, scope, is_active, timestamps',
      async () => {
        const created = await api(app, 'POST', '/api/v1/api-keys', {
          ...as(),
          body: { project_id: t.projectId, name: 'ci', scope: 'public' },
        });
        expect(created.status).toBe(201);
        const key: string = created.body.data.key;
        expect(key).toMatch(/^sl_live_pub_[0-9A-Za-z]{43}$/);
        expect(created.body.data).toMatchObject({
          scope: 'public',
          is_active: true,
          prefix: key.slice(0, 16),
          last4: key.slice(-4),
          last_used_at: null,
        });
        expect(created.body.data.key_hash).toBeUndefined();

        const row = await app.database.db('api_keys').where({ id: created.body.data.id }).first();
        expect(row.key_hash).toBe(hashApiKey(key));
        const dump = JSON.stringify(await app.database.db.raw('select * from api_keys'));
        expect(dump).not.toContain(key);
        expect(dump).not.toContain(key.slice(12, 40));

        const list = await api(app, 'GET', `/api/v1/api-keys?project_id=${t.projectId}`, as());
        const listed = list.body.data.find((k: { id: string }) => k.id === created.body.data.id);
        expect(Object.keys(listed).sort()).toEqual([
          'created_at',
          'id',
          'is_active',
          'last4',
          'last_used_at',
          'name',
          'org_id',
          'prefix',
          'project_id',
          'scope',
          'updated_at',
        ]);
        expect(JSON.stringify(list.body)).not.toContain(key);
        const one = await api(app, 'GET', `/api/v1/api-keys/${created.body.data.id}`, as());
        expect(one.body.data.key).toBeUndefined();

        const full = await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: t.projectId } });
        expect(full.body.data.key).toMatch(/^sl_live_(?!pub_)[0-9A-Za-z]{43}$/);
        expect(full.body.data.scope).toBe('full');
      },
    );

    it('records last_used_at on use (at most once a minute)', async () => {
      const k = (await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: t.projectId } })).body.data;
      expect((await api(app, 'GET', '/api/v1/me/key-info', { token: k.key })).status).toBe(200);
      const deadline = Date.now() + 5000;
      let row: { last_used_at: Date | null };
      do {
        row = await app.database.db('api_keys').where({ id: k.id }).first();
        if (row.last_used_at) break;
        await new Promise((r) => setTimeout(r, 20));
      } while (Date.now() < deadline);
      expect(row.last_used_at).toBeInstanceOf(Date);
      const first = row.last_used_at!.getTime();
      await api(app, 'GET', '/api/v1/me/key-info', { token: k.key });
      await new Promise((r) => setTimeout(r, 100)); // give a (wrong) fire-and-forget write time to land
      expect((await app.database.db('api_keys').where({ id: k.id }).first()).last_used_at.getTime()).toBe(first);
    });

    it('revoke and restore with is_active; revoked keys are refused; deletion is final', async () => {
      const k = (await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: t.projectId } })).body.data;
      const off = await api(app, 'PATCH', `/api/v1/api-keys/${k.id}`, { ...as(), body: { is_active: false } });
      expect(off.body.data.is_active).toBe(false);
      const refused = await api(app, 'GET', '/api/v1/me/key-info', { token: k.key });
      expect([refused.status, refused.body.code]).toEqual([401, 'api_key_revoked']);
      await api(app, 'PATCH', `/api/v1/api-keys/${k.id}`, { ...as(), body: { is_active: true } });
      expect((await api(app, 'GET', '/api/v1/me/key-info', { token: k.key })).body.data.status).toBe('active');
      expect((await api(app, 'DELETE', `/api/v1/api-keys/${k.id}`, as())).status).toBe(200);
      const gone = await api(app, 'GET', '/api/v1/me/key-info', { token: k.key });
      expect([gone.status, gone.body.code]).toEqual([401, 'invalid_api_key']);
      expect((await api(app, 'PATCH', `/api/v1/api-keys/${k.id}`, { ...as(), body: { is_active: true } })).status).toBe(
        404,
      );
    });

    it('validates input; other organizations’ projects and keys are 404', async () => {
      expect(
        (await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: t.projectId, scope: 'admin' } }))
          .status,
      ).toBe(400);
      expect((await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: 'x' } })).status).toBe(400);
      expect(
        (await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: other.projectId } })).status,
      ).toBe(404);
      expect((await api(app, 'GET', `/api/v1/api-keys/${other.fullKeyId}`, as())).status).toBe(404);
      expect(
        (await api(app, 'PATCH', `/api/v1/api-keys/${other.fullKeyId}`, { ...as(), body: { is_active: false } }))
          .status,
      ).toBe(404);
      expect((await api(app, 'DELETE', `/api/v1/api-keys/${other.fullKeyId}`, as())).status).toBe(404);
      expect((await api(app, 'GET', `/api/v1/api-keys?project_id=${other.projectId}`, as())).status).toBe(404);
      expect((await api(app, 'GET', '/api/v1/api-keys/12345', as())).status).toBe(404);
      expect((await api(app, 'PATCH', `/api/v1/api-keys/${t.fullKeyId}`, { ...as(), body: {} })).status).toBe(400);
      // The other tenant's key still works: nothing was changed.
      expect((await api(app, 'GET', '/api/v1/me/key-info', { token: other.fullKey })).status).toBe(200);
    });

    it('key-info shows the key’s project, organization, scope and status', async () => {
      const r = await api(app, 'GET', '/api/v1/me/key-info', { token: t.publicKey });
      expect(r.body.data).toMatchObject({
        scope: 'public',
        status: 'active',
        is_active: true,
        project: { id: t.projectId },
        organization: { id: t.orgId, plan: 'free' },
        key: { id: t.publicKeyId, prefix: t.publicKey.slice(0, 16), last4: t.publicKey.slice(-4) },
      });
      expect(JSON.stringify(r.body)).not.toContain(t.publicKey);
      expect((await api(app, 'GET', '/api/v1/me/key-info', { token: 'sl_live_' + 'x'.repeat(43) })).body.code).toBe(
        'invalid_api_key',
      );
      expect((await api(app, 'GET', '/api/v1/me/key-info', { token: 'sl_live_short' })).status).toBe(401);
      expect((await api(app, 'GET', '/api/v1/me/key-info', { headers: { authorization: 'Basic abc' } })).status).toBe(
        401,
      );
    });
  });
});
