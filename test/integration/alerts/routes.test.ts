import { startTestApp, type TestApp } from '../../helpers/app';
import { api, mintJwt, seedTenant, type SeededTenant } from '../../helpers/auth';
import { createRule, MIN, newProject, seed } from './helpers';
import type { Evaluation } from '../../../src/alerts/schemas';

type EvaluatedGroup = Evaluation['groups'][number];

/**
 * /api/v1/alerts: the role matrix of every route (JWT only: API keys 403; reads for every role,
 * writes for admin and editor; another organization 404), validation, history pages and evaluate.
 */
type Who =
  | 'none'
  | 'expired'
  | 'garbage'
  | 'revoked_key'
  | 'full_key'
  | 'public_key'
  | 'viewer'
  | 'editor'
  | 'admin'
  | 'other_org';
const WHO: Who[] = [
  'none',
  'expired',
  'garbage',
  'revoked_key',
  'full_key',
  'public_key',
  'viewer',
  'editor',
  'admin',
  'other_org',
];

describe('/api/v1/alerts', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let foreignRule: string;
  const as = (role: 'admin' | 'editor' | 'viewer' = 'admin') => ({ token: t[role].token, orgId: t.orgId });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    foreignRule = (await createRule(app, other, { type: 'cost', threshold: 1 })).id;
  });
  afterAll(() => app?.stop());

  function creds(who: Who): { token?: string; orgId?: string } {
    switch (who) {
      case 'none':
        return {};
      case 'expired':
        return { token: mintJwt({ sub: t.admin.sub, expiresInSeconds: -60 }), orgId: t.orgId };
      case 'garbage':
        return { token: 'garbage', orgId: t.orgId };
      case 'revoked_key':
        return { token: t.revokedKey };
      case 'full_key':
        return { token: t.fullKey };
      case 'public_key':
        return { token: t.publicKey };
      case 'other_org':
        return { token: other.admin.token, orgId: t.orgId };
      default:
        return as(who);
    }
  }
  const expected = (write: boolean, ok: number, who: Who) =>
    ['none', 'expired', 'garbage', 'revoked_key'].includes(who)
      ? 401
      : who === 'full_key' || who === 'public_key'
        ? 403
        : who === 'other_org'
          ? 404
          : write && who === 'viewer'
            ? 403
            : ok;

  const fresh = async () => (await createRule(app, t, { type: 'cost', threshold: 1 })).id;
  const rows: {
    name: string;
    method: string;
    path: (id: string) => string;
    write: boolean;
    ok: number;
    body?: unknown;
  }[] = [
    { name: 'GET /alerts', method: 'GET', path: () => '/api/v1/alerts', write: false, ok: 200 },
    {
      name: 'POST /alerts',
      method: 'POST',
      path: () => '/api/v1/alerts',
      write: true,
      ok: 201,
      body: { name: 'm', type: 'cost', operator: 'gt', threshold: 1, window_minutes: 5 },
    },
    { name: 'GET /alerts/:id', method: 'GET', path: (id) => `/api/v1/alerts/${id}`, write: false, ok: 200 },
    {
      name: 'PATCH /alerts/:id',
      method: 'PATCH',
      path: (id) => `/api/v1/alerts/${id}`,
      write: true,
      ok: 200,
      body: { threshold: 2 },
    },
    { name: 'DELETE /alerts/:id', method: 'DELETE', path: (id) => `/api/v1/alerts/${id}`, write: true, ok: 200 },
    {
      name: 'GET /alerts/:id/events',
      method: 'GET',
      path: (id) => `/api/v1/alerts/${id}/events`,
      write: false,
      ok: 200,
    },
    {
      name: 'POST /alerts/:id/evaluate',
      method: 'POST',
      path: (id) => `/api/v1/alerts/${id}/evaluate`,
      write: false,
      ok: 200,
    },
  ];
  const cases = rows.flatMap((row) =>
    WHO.map((who) => ({ row, who, name: row.name, status: expected(row.write, row.ok, who) })),
  );

  it.each(cases)('$name as $who → $status', async ({ row, who, status }) => {
    const r = await api(app, row.method, row.path(await fresh()), { ...creds(who), body: row.body });
    expect(r.status).toBe(status);
    if (status >= 400) expect(r.body).toMatchObject({ success: false, code: expect.any(String) });
    else expect(r.body.success).toBe(true);
  });

  it.each(rows.filter((r) => r.path('x') !== r.path('y')))(
    '$name on another organization’s rule (or a malformed id) → 404',
    async (row) => {
      for (const id of [foreignRule, 'not-a-uuid']) {
        const r = await api(app, row.method, row.path(id), { ...as(), body: row.body });
        expect(r.status).toBe(404);
      }
    },
  );

  it('validates rules: 400 naming the problem, never a 5xx', async () => {
    const base = { name: 'v', type: 'cost', operator: 'gt', threshold: 1, window_minutes: 5 };
    const bad: [Record<string, unknown>, string][] = [
      [{ type: 'anomalies' }, 'validation_error'],
      [{ type: 'security_finding', filter: { severity: 'urgent' } }, 'validation_error'],
      [{ type: 'security_finding', filter: { model: 'gpt-4o' } }, 'invalid_filter'],
      [{ type: 'anomaly', filter: { severity: 'high' } }, 'invalid_filter'],
      [{ type: 'cost', filter: { finding_kind: 'pii' } }, 'invalid_filter'],
      [{ type: 'anomaly', group_by: 'model' }, 'invalid_group_by'],
      [{ window_minutes: 0 }, 'validation_error'],
      [{ window_minutes: 1441 }, 'validation_error'],
      [{ operator: 'eq' }, 'validation_error'],
      [{ no_data: 'maybe' }, 'validation_error'],
      [{ group_by: 'session' }, 'validation_error'],
      [{ filter: { nope: 1 } }, 'validation_error'],
      [{ filter: { min_cost: 2, max_cost: 1 } }, 'invalid_range'],
      [{ type: 'cost_per_user', group_by: 'model' }, 'invalid_group_by'],
      [{ warning_threshold: 2 }, 'invalid_threshold'],
    ];
    for (const [patch, code] of bad) {
      const r = await api(app, 'POST', '/api/v1/alerts', { ...as(), body: { ...base, ...patch } });
      expect({ patch, status: r.status, code: r.body.code }).toEqual({ patch, status: 400, code });
    }
    const foreignProject = await api(app, 'POST', '/api/v1/alerts', {
      ...as(),
      body: { ...base, project_id: other.projectId },
    });
    expect(foreignProject.status).toBe(404);
    const ok = await api(app, 'POST', '/api/v1/alerts', {
      ...as('editor'),
      body: {
        ...base,
        project_id: t.projectId,
        filter: { model: 'gpt-4o', property: ['Team:search'], cache_hit: false },
        group_by: 'property:team',
        warning_threshold: 0.5,
        min_requests: 10,
        no_data: 'keep',
        cooldown_minutes: 0,
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({
      project_id: t.projectId,
      filter: { model: 'gpt-4o', property: ['Team:search'], cache_hit: false },
      group_by: 'property:team',
      no_data: 'keep',
      cooldown_minutes: 0,
      is_active: true,
    });
    const audit = await api(app, 'GET', `/api/v1/audit-logs?resource_id=${ok.body.data.id}`, as());
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['alert.created']);
  });

  it('evaluate answers the values per group, worst first, and records nothing', async () => {
    const p = await newProject(app, t);
    const now = Date.now();
    await seed(app, t, p, 4, now - 5 * MIN, { model: 'slow', latency_ms: 3000 });
    await seed(app, t, p, 4, now - 5 * MIN, { model: 'fast', latency_ms: 100 });
    const rule = await createRule(app, t, {
      type: 'latency_p95',
      threshold: 1000,
      warning_threshold: 50,
      project_id: p,
      group_by: 'model',
      window_minutes: 15,
    });
    const r = await api(app, 'POST', `/api/v1/alerts/${rule.id}/evaluate`, as('viewer'));
    expect(r.status).toBe(200);
    expect(r.body.data.source).toBe('raw');
    expect(r.body.data.groups.map((g: EvaluatedGroup) => [g.group, g.level, g.state, g.requests])).toEqual([
      ['slow', 'alert', 'ok', 4],
      ['fast', 'warning', 'ok', 4],
    ]);
    expect(r.body.data.groups[0].current_value).toBeCloseTo(3000, 0);
    const db = app.runtime.ctx.db;
    expect(await db('alert_states').where({ rule_id: rule.id })).toHaveLength(0);
    expect(await db('alert_events').where({ rule_id: rule.id })).toHaveLength(0);
  });

  it('pages the history newest first with a cursor', async () => {
    const rule = await createRule(app, t, { type: 'cost', threshold: 1 });
    const db = app.runtime.ctx.db;
    const base = Date.parse('2026-09-01T00:00:00Z');
    await db('alert_events').insert(
      Array.from({ length: 5 }, (_, i) => ({
        rule_id: rule.id,
        org_id: t.orgId,
        kind: i % 2 ? 'resolved' : 'triggered',
        group_key: '',
        value: i,
        threshold: 1,
        at: new Date(base + i * MIN),
      })),
    );
    const p1 = await api(app, 'GET', `/api/v1/alerts/${rule.id}/events?limit=2`, as('viewer'));
    expect(p1.body.data.map((e: { value: number }) => e.value)).toEqual([4, 3]);
    const p2 = await api(
      app,
      'GET',
      `/api/v1/alerts/${rule.id}/events?limit=2&cursor=${p1.body.next_cursor}`,
      as('viewer'),
    );
    const p3 = await api(
      app,
      'GET',
      `/api/v1/alerts/${rule.id}/events?limit=2&cursor=${p2.body.next_cursor}`,
      as('viewer'),
    );
    expect([...p2.body.data, ...p3.body.data].map((e: { value: number }) => e.value)).toEqual([2, 1, 0]);
    expect(p3.body.next_cursor).toBeNull();
    expect((await api(app, 'GET', `/api/v1/alerts/${rule.id}/events?cursor=garbage`, as())).body.code).toBe(
      'invalid_cursor',
    );
  });
});
