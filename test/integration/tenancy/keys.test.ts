import { randomBytes } from 'node:crypto';
import { hashApiKey } from '../../../src/auth/api-keys';
import { resolveMasterKey } from '../../../src/auth/crypto';
import { getProviderKey, reencryptProviderKeys } from '../../../src/keys/provider-keys';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';

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
    it('returns the full key once; stores only its SHA-256; lists prefix, last4, scope, is_active, timestamps', async () => {
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
    });

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

  describe('provider keys', () => {
    const secret = `sk-proj-${randomBytes(24).toString('hex')}`;

    it('encrypts at rest (no plaintext in the database), masks in responses, decrypts with getProviderKey', async () => {
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
    });

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

    it('is decryptable only with the master key it was written under; MASTER_KEYS_OLD keeps old rows readable', async () => {
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
      const src = await app.database.db('provider_keys').where({ project_id: t.projectId, provider: 'openai' }).first();
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
    });

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
