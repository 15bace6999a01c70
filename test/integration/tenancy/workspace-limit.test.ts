import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, mintJwt } from '../../helpers/auth';

const user = () => {
  const sub = `u-${randomBytes(4).toString('hex')}`;
  return { sub, token: mintJwt({ sub, email: `${sub}@example.test` }) };
};

describe('POST /api/v1/organizations workspace limits (402)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
  });
  afterAll(() => app.stop());

  const create = (token: string, name = 'W') => api(app, 'POST', '/api/v1/organizations', { token, body: { name } });

  it('answers 402 with exactly code, error, owned, limit, effectivePlan once the free allowance is used', async () => {
    const u = user();
    const first = await create(u.token, 'First');
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ name: 'First', plan: 'free', role: 'admin', is_owner: true });

    const second = await create(u.token, 'Second');
    expect(second.status).toBe(402);
    expect(Object.keys(second.body).sort()).toEqual(['code', 'effectivePlan', 'error', 'limit', 'owned', 'success']);
    expect(second.body.success).toBe(false);
    expect(second.body.code).toBe('workspace_limit_reached');
    expect(typeof second.body.error).toBe('string');
    expect(String(second.body.error).length).toBeGreaterThan(10);
    expect(second.body.owned).toBe(1);
    expect(Number.isInteger(second.body.owned)).toBe(true);
    expect(second.body.limit).toBe(1);
    expect(Number.isInteger(second.body.limit)).toBe(true);
    expect(second.body.effectivePlan).toBe('free');
    expect(second.body.data).toBeUndefined();

    const mine = await api(app, 'GET', '/api/v1/organizations', { token: u.token });
    expect(mine.body.data).toHaveLength(1);
  });

  it('upgrading an owned workspace and retrying succeeds, up to the new plan limit (pro 2, team 5)', async () => {
    const u = user();
    const org = (await create(u.token)).body.data;
    expect((await create(u.token)).status).toBe(402);

    const up = await api(app, 'PATCH', '/api/v1/billing', { token: u.token, orgId: org.id, body: { plan: 'pro' } });
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ plan: 'pro', previous_plan: 'free' });

    expect((await create(u.token)).status).toBe(201);
    const third = await create(u.token);
    expect(third.status).toBe(402);
    expect(third.body).toMatchObject({ owned: 2, limit: 2, effectivePlan: 'pro' });

    await api(app, 'PUT', '/api/v1/billing', { token: u.token, orgId: org.id, body: { plan: 'team' } });
    for (let i = 0; i < 3; i++) expect((await create(u.token)).status).toBe(201);
    expect((await create(u.token)).body).toMatchObject({
      code: 'workspace_limit_reached',
      owned: 5,
      limit: 5,
      effectivePlan: 'team',
    });
  });

  it('enterprise is unlimited; the effective plan is the highest among owned workspaces', async () => {
    const u = user();
    const org = (await create(u.token)).body.data;
    await api(app, 'PATCH', '/api/v1/billing', { token: u.token, orgId: org.id, body: { plan: 'enterprise' } });
    for (let i = 0; i < 7; i++) expect((await create(u.token)).status).toBe(201);
    // Downgrading the enterprise workspace brings the limit back; existing workspaces stay.
    await api(app, 'PATCH', '/api/v1/billing', { token: u.token, orgId: org.id, body: { plan: 'free' } });
    expect((await create(u.token)).body).toMatchObject({ owned: 8, limit: 1, effectivePlan: 'free' });
  });

  it('membership in others’ workspaces does not count: only owned ones do', async () => {
    const owner = user();
    const org = (await create(owner.token)).body.data;
    const guest = user();
    const email = `${guest.sub}@example.test`;
    const inv = await api(app, 'POST', `/api/v1/organizations/${org.id}/invitations`, {
      token: owner.token,
      body: { email, role: 'admin' },
    });
    expect(
      (
        await api(app, 'POST', '/api/v1/invitations/accept', {
          token: guest.token,
          body: { token: inv.body.data.token },
        })
      ).status,
    ).toBe(200);
    expect((await create(guest.token)).status).toBe(201);
  });

  it('is race-free: concurrent creates by one user never exceed the limit', async () => {
    const u = user();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(u.token, `Race ${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(7);
    const { rows } = await app.database.db.raw(
      `select count(*)::int as n from organizations o join users u on u.id = o.owner_user_id where u.sub = ?`,
      [u.sub],
    );
    expect(rows[0].n).toBe(1);

    // Same with a pro allowance: exactly one more gets through.
    const org = results.find((r) => r.status === 201)!.body.data;
    await api(app, 'PATCH', '/api/v1/billing', { token: u.token, orgId: org.id, body: { plan: 'pro' } });
    const again = await Promise.all(Array.from({ length: 6 }, () => create(u.token)));
    expect(again.filter((r) => r.status === 201)).toHaveLength(1);
  });

  it('rejects a bad body with 400 naming the field, and stores nothing', async () => {
    const u = user();
    const r = await create(u.token, '');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_error');
    expect(r.body.error).toMatch(/name/);
    const extra = await api(app, 'POST', '/api/v1/organizations', {
      token: u.token,
      body: { name: 'x', plan: 'enterprise' },
    });
    expect(extra.status).toBe(400);
    expect((await api(app, 'GET', '/api/v1/organizations', { token: u.token })).body.data).toEqual([]);
  });
});
