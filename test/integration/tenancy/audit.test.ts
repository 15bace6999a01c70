import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type ApiResult, type SeededTenant } from '../../helpers/auth';

/** The fields of an audit log entry these tests read. */
interface AuditRow {
  id: string;
  action: string;
  actor_id: string | null;
  resource_id: string | null;
}

describe('audit logs', () => {
  let app: TestApp;
  let t: SeededTenant;
  const as = () => ({ token: t.admin.token, orgId: t.orgId });
  const logs = (q = '') => api(app, 'GET', `/api/v1/audit-logs${q}`, as());

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  it('every write of the seeding left a row with actor, action, resource and time', async () => {
    const r = await logs('?limit=200');
    expect(r.status).toBe(200);
    const actions = r.body.data.map((e: AuditRow) => e.action);
    for (const a of [
      'organization.created',
      'project.created',
      'invitation.created',
      'invitation.accepted',
      'member.added',
      'api_key.created',
      'api_key.revoked',
    ]) {
      expect(actions).toContain(a);
    }
    const created = r.body.data.find((e: AuditRow) => e.action === 'organization.created');
    expect(created).toMatchObject({
      actor_type: 'user',
      actor_id: t.admin.userId,
      actor_label: t.admin.email,
      resource_type: 'organization',
      resource_id: t.orgId,
    });
    expect(Date.parse(created.created_at)).not.toBeNaN();
  });

  it('records before/after with secrets redacted (API key hash, invitation token never appear)', async () => {
    const k = (
      await api(app, 'POST', '/api/v1/api-keys', { ...as(), body: { project_id: t.projectId, name: 'audited' } })
    ).body.data;
    await api(app, 'PATCH', `/api/v1/api-keys/${k.id}`, { ...as(), body: { name: 'renamed' } });
    const r = await logs(`?resource_type=api_key&resource_id=${k.id}`);
    expect(r.body.data.map((e: AuditRow) => e.action)).toEqual(['api_key.updated', 'api_key.created']);
    expect(r.body.data[0].before.name).toBe('audited');
    expect(r.body.data[0].after.name).toBe('renamed');
    expect(r.body.data[1].after).toMatchObject({ id: k.id, prefix: k.prefix, last4: k.last4, scope: 'full' });
    const all = JSON.stringify(await app.database.db('audit_logs').select('before', 'after'));
    expect(all).not.toContain(k.key);
    const hash = (await app.database.db('api_keys').where({ id: k.id }).first()).key_hash;
    expect(all).not.toContain(hash);

    const inv = (
      await api(app, 'POST', `/api/v1/organizations/${t.orgId}/invitations`, {
        ...as(),
        body: { email: 'audit@example.test' },
      })
    ).body.data;
    expect(all + JSON.stringify(await app.database.db('audit_logs'))).not.toContain(inv.token);
  });

  it('filters by action (exact or prefix.*), actor and time range; paginates with a cursor', async () => {
    for (let i = 0; i < 5; i++)
      await api(app, 'POST', '/api/v1/projects', {
        token: t.editor.token,
        orgId: t.orgId,
        body: { name: `audit ${i}` },
      });
    const byActor = await logs(`?actor_id=${t.editor.userId}&action=project.created`);
    expect(byActor.body.data).toHaveLength(5);
    expect(byActor.body.data.every((e: AuditRow) => e.actor_id === t.editor.userId)).toBe(true);
    const prefix = await logs('?action=project.*&limit=200');
    expect(prefix.body.data.length).toBe(6);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResult<AuditRow[]> = await logs(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.data.length).toBeLessThanOrEqual(4);
      seen.push(...page.body.data.map((e: AuditRow) => e.id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    const total = Number((await app.database.db('audit_logs').where({ org_id: t.orgId }).count({ n: '*' }))[0]!.n);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);

    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await logs(`?from=${future}`)).body.data).toEqual([]);
    expect(
      (await logs(`?to=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}&limit=1`)).body.data,
    ).toHaveLength(1);
    expect((await logs('?cursor=garbage')).status).toBe(400);
    expect((await logs('?from=yesterday')).status).toBe(400);
    expect((await logs('?limit=0')).status).toBe(400);
  });

  it('plan changes are recorded in billing history and audited', async () => {
    await api(app, 'PATCH', '/api/v1/billing', { ...as(), body: { plan: 'team' } });
    // Usage counts this month's proxied requests (the request log of the proxy feature).
    const db = app.database.db;
    const req = (createdAt: unknown) => ({
      org_id: t.orgId,
      project_id: t.projectId,
      provider: 'openai',
      path: '/v1/chat/completions',
      latency_ms: 1,
      status_code: 200,
      created_at: createdAt,
    });
    await db('requests').insert([
      req(db.fn.now()),
      req(db.fn.now()),
      req(db.fn.now()),
      req(db.raw(`date_trunc('month', now()) - interval '1 day'`)),
    ]);
    const b = await api(app, 'GET', '/api/v1/billing', { token: t.viewer.token, orgId: t.orgId });
    expect(b.body.data).toMatchObject({ plan: 'team', limits: { workspaces_per_owner: 5 } });
    expect(b.body.data.usage).toMatchObject({ members: 3, requests_this_month: 3 });
    expect(b.body.data.usage.projects).toBeGreaterThanOrEqual(1);
    expect(b.body.data.usage.api_keys).toBeGreaterThanOrEqual(3);
    expect(b.body.data.plan_changes[0]).toMatchObject({
      from_plan: 'free',
      to_plan: 'team',
      changed_by: t.admin.userId,
    });
    const a = await logs('?action=billing.plan_changed');
    expect(a.body.data[0]).toMatchObject({ before: { plan: 'free' }, after: { plan: 'team' } });
    expect((await api(app, 'PATCH', '/api/v1/billing', { ...as(), body: { plan: 'platinum' } })).status).toBe(400);
  });

  it('audit rows of one organization are invisible to another', async () => {
    const other = await seedTenant(app);
    const theirs = await api(app, 'GET', '/api/v1/audit-logs?limit=200', {
      token: other.admin.token,
      orgId: other.orgId,
    });
    expect(theirs.body.data.every((e: AuditRow) => e.resource_id !== t.orgId && e.actor_id !== t.admin.userId)).toBe(
      true,
    );
  });
});
