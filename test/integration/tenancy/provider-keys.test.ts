import { randomBytes } from 'node:crypto';
import { resolveMasterKey } from '../../../src/auth/crypto';
import { getProviderKey, reencryptProviderKeys } from '../../../src/keys/provider-keys';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

/** Provider keys (API keys are in keys.test.ts). */
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

  describe('provider keys', () => {
    const secret = `sk-proj-${randomBytes(24).toString('hex')}`;

    it(
      'encrypts at rest (no plaintext in the database), ' + 'masks in responses, decrypts with getProviderKey',
      async () => {
        const r = await api(app, 'POST', '/api/v1/provider-keys', {
          ...as(),
          body: { project_id: t.projectId, provider: 'openai', api_key: secret },
        });
        expect(r.status).toBe(201);
        expect(r.body.data).toMatchObject({
          provider: 'openai',
          project_id: t.projectId,
          masked_key: `sk-p…${secret.slice(-4)}`,
          base_url: null,
          master_key_id: 'k1',
        });
        expect(JSON.stringify(r.body)).not.toContain(secret.slice(8, 30));

        const row = await app.database.db('provider_keys').where({ id: r.body.data.id }).first();
        expect(row.api_key_ciphertext).toMatch(/^v1\./);
        const dump = JSON.stringify(await app.database.db.raw('select * from provider_keys'));
        expect(dump).not.toContain(secret);
        expect(dump).not.toContain(secret.slice(8, 30));
        const audit = JSON.stringify(await app.database.db('audit_logs').where({ resource_type: 'provider_key' }));
        expect(audit).not.toContain(secret.slice(8, 30));

        expect(await getProviderKey(app.runtime.ctx.db, t.projectId, 'openai', app.runtime.ctx.keyring)).toEqual({
          apiKey: secret,
          baseUrl: null,
        });
        expect(await getProviderKey(app.runtime.ctx.db, t.projectId, 'anthropic', app.runtime.ctx.keyring)).toBeNull();
        const listed = await api(app, 'GET', '/api/v1/provider-keys', as());
        expect(JSON.stringify(listed.body)).not.toContain(secret.slice(8, 30));
        expect(listed.body.data.find((k: { provider: string }) => k.provider === 'openai').masked_key).toBe(
          `sk-p…${secret.slice(-4)}`,
        );
      },
    );

    it('one entry per (project, provider): a second create replaces (200) and the new key decrypts', async () => {
      const replacement = `sk-proj-${randomBytes(24).toString('hex')}`;
      const r = await api(app, 'PUT', '/api/v1/provider-keys', {
        ...as(),
        body: {
          project_id: t.projectId,
          provider: 'openai',
          api_key: replacement,
          base_url: 'https://openai-proxy.internal.example/v1',
        },
      });
      expect(r.status).toBe(200);
      const rows = await app.database.db('provider_keys').where({ project_id: t.projectId, provider: 'openai' });
      expect(rows).toHaveLength(1);
      expect(await getProviderKey(app.runtime.ctx.db, t.projectId, 'openai', app.runtime.ctx.keyring)).toEqual({
        apiKey: replacement,
        baseUrl: 'https://openai-proxy.internal.example/v1',
      });
      const audit = await app.database
        .db('audit_logs')
        .where({ action: 'provider_key.replaced', resource_id: r.body.data.id });
      expect(audit).toHaveLength(1);
    });

    it('ollama needs no key; other providers do; base_url must be http(s); unknown providers are 400', async () => {
      const o = await api(app, 'POST', '/api/v1/provider-keys', {
        ...as(),
        body: { project_id: t.projectId, provider: 'ollama', base_url: 'http://127.0.0.1:11434' },
      });
      expect(o.status).toBe(201);
      expect(o.body.data.masked_key).toBeNull();
      expect(await getProviderKey(app.runtime.ctx.db, t.projectId, 'ollama', app.runtime.ctx.keyring)).toEqual({
        apiKey: null,
        baseUrl: 'http://127.0.0.1:11434',
      });
      const bad = [
        { provider: 'mistral' },
        { provider: 'mistral', api_key: 'k-123456789', base_url: 'ftp://x' },
        { provider: 'mistral', api_key: 'k-123456789', base_url: 'not a url' },
        { provider: 'mistral', api_key: 'k-123456789', base_url: 'https://user:pw@host' },
        { provider: 'cohere', api_key: 'k-123456789' },
      ];
      for (const b of bad) {
        const r = await api(app, 'POST', '/api/v1/provider-keys', { ...as(), body: { project_id: t.projectId, ...b } });
        expect([r.status, r.body.code]).toEqual([400, 'validation_error']);
      }
    });

    it(
      'is decryptable only with the master key it was written under; ' + 'MASTER_KEYS_OLD keeps old rows readable',
      async () => {
        const ring = resolveMasterKey(app.config);
        expect(await getProviderKey(app.runtime.ctx.db, t.projectId, 'openai', ring)).not.toBeNull();
        const newKey = randomBytes(32).toString('hex');
        const rotated = resolveMasterKey({
          ...app.config,
          MASTER_KEY: newKey,
          MASTER_KEY_ID: 'k2',
          MASTER_KEYS_OLD: `k1:${app.config.MASTER_KEY}`,
        });
        expect((await getProviderKey(app.runtime.ctx.db, t.projectId, 'openai', rotated))!.apiKey).toMatch(/^sk-proj-/);
        const without = resolveMasterKey({ ...app.config, MASTER_KEY: newKey, MASTER_KEY_ID: 'k2' });
        await expect(getProviderKey(app.runtime.ctx.db, t.projectId, 'openai', without)).rejects.toThrow(
          /k1 is not configured/,
        );
        // Ciphertext moved onto another row does not decrypt (bound to project and provider).
        const src = await app.database
          .db('provider_keys')
          .where({ project_id: t.projectId, provider: 'openai' })
          .first();
        await app.database.db('provider_keys').insert({
          org_id: t.orgId,
          project_id: t.projectId,
          provider: 'groq',
          api_key_ciphertext: src.api_key_ciphertext,
          master_key_id: src.master_key_id,
        });
        await expect(getProviderKey(app.runtime.ctx.db, t.projectId, 'groq', app.runtime.ctx.keyring)).rejects.toThrow(
          /authenticate/,
        );
        await app.database.db('provider_keys').where({ project_id: t.projectId, provider: 'groq' }).delete();
      },
    );

    it('reencryptProviderKeys moves every row to the current master key, after which the old key can go', async () => {
      const db = app.runtime.ctx.db;
      const before = await getProviderKey(db, t.projectId, 'openai', app.runtime.ctx.keyring);
      const k3 = randomBytes(32).toString('hex');
      const rotated = resolveMasterKey({
        ...app.config,
        MASTER_KEY: k3,
        MASTER_KEY_ID: 'k3',
        MASTER_KEYS_OLD: `k1:${app.config.MASTER_KEY}`,
      });
      const n = await reencryptProviderKeys(db, rotated, 2);
      expect(n).toBeGreaterThanOrEqual(1);
      const ids = await db('provider_keys').whereNotNull('api_key_ciphertext').distinct('master_key_id');
      expect(ids).toEqual([{ master_key_id: 'k3' }]);
      const onlyNew = resolveMasterKey({ ...app.config, MASTER_KEY: k3, MASTER_KEY_ID: 'k3' });
      expect(await getProviderKey(db, t.projectId, 'openai', onlyNew)).toEqual(before);
      expect(await reencryptProviderKeys(db, rotated)).toBe(0);
      // Put things back under the app's key for the tests below.
      await reencryptProviderKeys(db, resolveMasterKey({ ...app.config, MASTER_KEYS_OLD: `k3:${k3}` }));
      expect(await getProviderKey(db, t.projectId, 'openai', app.runtime.ctx.keyring)).toEqual(before);
    });

    it('other organizations’ provider keys and projects are 404; delete removes the entry', async () => {
      const theirs = await api(app, 'POST', '/api/v1/provider-keys', {
        token: other.admin.token,
        orgId: other.orgId,
        body: { project_id: other.projectId, provider: 'xai', api_key: 'xai-0123456789abcdef' },
      });
      expect((await api(app, 'GET', `/api/v1/provider-keys/${theirs.body.data.id}`, as())).status).toBe(404);
      expect((await api(app, 'DELETE', `/api/v1/provider-keys/${theirs.body.data.id}`, as())).status).toBe(404);
      expect(
        (
          await api(app, 'POST', '/api/v1/provider-keys', {
            ...as(),
            body: { project_id: other.projectId, provider: 'xai', api_key: 'xai-0123456789' },
          })
        ).status,
      ).toBe(404);
      expect((await api(app, 'GET', '/api/v1/provider-keys/zzz', as())).status).toBe(404);
      const mine = await api(app, 'POST', '/api/v1/provider-keys', {
        ...as(),
        body: { project_id: t.projectId, provider: 'deepseek', api_key: 'ds-0123456789abcdef' },
      });
      expect((await api(app, 'DELETE', `/api/v1/provider-keys/${mine.body.data.id}`, as())).status).toBe(200);
      expect(await getProviderKey(app.runtime.ctx.db, t.projectId, 'deepseek', app.runtime.ctx.keyring)).toBeNull();
      expect(await getProviderKey(app.runtime.ctx.db, other.projectId, 'xai', app.runtime.ctx.keyring)).toEqual({
        apiKey: 'xai-0123456789abcdef',
        baseUrl: null,
      });
    });
  });
});
