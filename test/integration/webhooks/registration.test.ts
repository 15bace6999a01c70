import type { TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import type { HttpsReceiver } from '../../helpers/https-receiver';
import { startApiBed, stopApiBed, type ApiBed } from './api-bed';

/**
 * Webhook registration and reads through the REST API (no worker needed: an api-only service). Deliveries are
 * in api.test.ts.
 */
describe('/api/v1/webhooks', () => {
  let app: TestApp;
  let t: SeededTenant;
  let receiver: HttpsReceiver;
  const as = (who: 'admin' | 'editor' | 'viewer') => ({ token: t[who].token, orgId: t.orgId });
  const db = () => app.runtime.ctx.db;

  let bed: ApiBed | undefined;

  beforeAll(async () => {
    bed = await startApiBed('api');
    ({ app, receiver, t } = bed);
  });
  afterAll(() => stopApiBed(bed));

  const create = (body: Record<string, unknown>, who: 'admin' | 'editor' | 'viewer' = 'admin') =>
    api(app, 'POST', '/api/v1/webhooks', { ...as(who), body });

  describe('registration and reads', () => {
    it('creates a webhook (201) with a full 32-hex secret shown once; later reads mask it', async () => {
      const res = await create({
        name: 'ops',
        url: `${receiver.url}/first`,
        events: ['request.created', 'trace.completed'],
      });
      expect(res.status).toBe(201);
      const w = res.body.data;
      expect(w).toMatchObject({
        name: 'ops',
        url: `${receiver.url}/first`,
        events: ['request.created', 'trace.completed'],
        is_active: true,
      });
      expect(w.secret).toMatch(/^[0-9a-f]{32}$/);
      expect(new Date(w.created_at).toISOString()).toBe(w.created_at);

      const masked = `${w.secret.slice(0, 4)}…`;
      const list = await api(app, 'GET', '/api/v1/webhooks', as('viewer'));
      expect(list.status).toBe(200);
      expect(list.body.data.find((x: { id: string }) => x.id === w.id).secret).toBe(masked);
      const one = await api(app, 'GET', `/api/v1/webhooks/${w.id}`, as('editor'));
      expect(one.body.data.secret).toBe(masked);
      const patched = await api(app, 'PATCH', `/api/v1/webhooks/${w.id}`, { ...as('editor'), body: { name: 'ops 2' } });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toMatchObject({ name: 'ops 2', secret: masked });

      // Stored encrypted, not in clear text.
      const row = await db()('webhooks').where({ id: w.id }).first();
      expect(JSON.stringify(row)).not.toContain(w.secret);
      // Audited without the secret.
      const audit = await db()('audit_logs').where({ resource_id: w.id }).orderBy('created_at');
      expect(audit.map((a: { action: string }) => a.action)).toEqual(['webhook.created', 'webhook.updated']);
      expect(JSON.stringify(audit)).not.toContain(w.secret);
      expect((await api(app, 'DELETE', `/api/v1/webhooks/${w.id}`, as('editor'))).status).toBe(200);
    });

    it.each([
      [{ name: 'x', url: 'http://example.com/hook', events: [] }, /https/],
      [{ name: 'x', url: 'ftp://example.com/hook', events: [] }, /https/],
      [{ name: 'x', url: 'not a url', events: [] }, /valid URL/],
      [{ name: 'x', url: 'https://user:pw@example.com/', events: [] }, /credentials/],
      [{ name: 'x', url: 'https://example.com/', events: ['request.deleted'] }, /events/],
      [{ name: 'x', url: 'https://example.com/', events: 'request.created' }, /events/],
      [{ name: '', url: 'https://example.com/', events: [] }, /name/],
      [{ url: 'https://example.com/', events: [] }, /name/],
      [{ name: 'x', events: [] }, /url/],
      [{ name: 'x', url: 'https://example.com/' }, /events/],
      [{ name: 'x', url: 'https://example.com/', events: [], is_active: 'yes' }, /is_active/],
      [{ name: 'x', url: 'https://example.com/', events: [], secret: 'mine' }, /secret|Unrecognized/i],
    ])('rejects invalid registration %j with a clear 400', async (body, message) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'validation_error' });
      expect(res.body.error).toMatch(message);
    });

    it('rejects literal private / metadata addresses at registration', async () => {
      for (const url of [
        'https://10.0.0.1/hook',
        'https://169.254.169.254/latest',
        'https://[::1]/x',
        'https://2130706434/',
      ]) {
        const res = await create({ name: 'x', url, events: [] });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('webhook_url_forbidden');
      }
    });

    it('accepts an empty events list (nothing delivered) and is_active false', async () => {
      const res = await create({ name: 'quiet', url: 'https://example.com/quiet', events: [], is_active: false });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ events: [], is_active: false });
      await api(app, 'DELETE', `/api/v1/webhooks/${res.body.data.id}`, as('admin'));
    });

    it('lets viewers read webhooks and deliveries but not write', async () => {
      const w = (await create({ name: 'v', url: 'https://example.com/v', events: [] })).body.data;
      expect((await api(app, 'GET', '/api/v1/webhooks', as('viewer'))).status).toBe(200);
      expect((await api(app, 'GET', `/api/v1/webhooks/${w.id}/deliveries`, as('viewer'))).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/api/v1/webhooks', { name: 'v', url: 'https://example.com/', events: [] }],
        ['PATCH', `/api/v1/webhooks/${w.id}`, { name: 'no' }],
        ['DELETE', `/api/v1/webhooks/${w.id}`, undefined],
        ['POST', `/api/v1/webhooks/${w.id}/test`, undefined],
      ] as const) {
        const res = await api(app, method, path, { ...as('viewer'), body });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_role');
      }
      expect((await api(app, 'GET', '/api/v1/webhooks')).status).toBe(401);
      expect((await api(app, 'GET', '/api/v1/webhooks', { token: t.fullKey })).status).toBe(403);
      await api(app, 'DELETE', `/api/v1/webhooks/${w.id}`, as('admin'));
    });

    it('answers 404 for unknown ids, malformed ids and other organizations’ webhooks', async () => {
      const other = await seedTenant(app);
      const theirs = (
        await api(app, 'POST', '/api/v1/webhooks', {
          token: other.admin.token,
          orgId: other.orgId,
          body: { name: 'o', url: 'https://example.com/o', events: [] },
        })
      ).body.data;
      for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
        expect((await api(app, 'GET', `/api/v1/webhooks/${id}`, as('admin'))).status).toBe(404);
        expect(
          (await api(app, 'PATCH', `/api/v1/webhooks/${id}`, { ...as('admin'), body: { name: 'x' } })).status,
        ).toBe(404);
        expect((await api(app, 'DELETE', `/api/v1/webhooks/${id}`, as('admin'))).status).toBe(404);
        expect((await api(app, 'GET', `/api/v1/webhooks/${id}/deliveries`, as('admin'))).status).toBe(404);
      }
    });

    it('validates PATCH bodies (empty, http url, unknown event) with 400', async () => {
      const w = (await create({ name: 'p', url: 'https://example.com/p', events: [] })).body.data;
      for (const body of [{}, { url: 'http://example.com' }, { events: ['nope'] }, { name: '' }, { is_active: 1 }]) {
        const res = await api(app, 'PATCH', `/api/v1/webhooks/${w.id}`, { ...as('editor'), body });
        expect(res.status).toBe(400);
      }
      await api(app, 'DELETE', `/api/v1/webhooks/${w.id}`, as('admin'));
    });

    it('allows at most 20 webhooks per organization, race-free, and frees a slot on delete', async () => {
      const org = await seedTenant(app);
      const mine = { token: org.admin.token, orgId: org.orgId };
      const tries = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          api(app, 'POST', '/api/v1/webhooks', {
            ...mine,
            body: { name: `w${i}`, url: `https://example.com/${i}`, events: [] },
          }),
        ),
      );
      expect(tries.filter((r) => r.status === 201)).toHaveLength(20);
      const refused = tries.filter((r) => r.status !== 201);
      expect(refused).toHaveLength(4);
      for (const r of refused) {
        expect(r.status).toBe(409);
        expect(r.body).toMatchObject({ code: 'webhook_limit_reached', limit: 20 });
        expect(r.body.error).toMatch(/at most 20 webhooks/);
      }
      expect((await api(app, 'GET', '/api/v1/webhooks', mine)).body.data).toHaveLength(20);
      const created = tries.find((r) => r.status === 201)!.body.data.id; // whichever of the concurrent creates won
      const del = await api(app, 'DELETE', `/api/v1/webhooks/${created}`, mine);
      expect([del.status, del.body.data]).toEqual([200, { id: created, deleted: true }]);
      expect(
        (
          await api(app, 'POST', '/api/v1/webhooks', {
            ...mine,
            body: { name: 'again', url: 'https://example.com/x', events: [] },
          })
        ).status,
      ).toBe(201);
    });
  });
});
