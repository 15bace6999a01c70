import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, mintJwt, seedTenant, type SeededTenant } from '../../helpers/auth';

const person = (verified?: boolean) => {
  const sub = `p-${randomBytes(4).toString('hex')}`;
  const email = `${sub}@Example.test`;
  return {
    sub,
    email,
    token: mintJwt({ sub, email, claims: verified === undefined ? {} : { email_verified: verified } }),
  };
};

describe('members and invitations', () => {
  let app: TestApp;
  let t: SeededTenant;
  const asAdmin = () => ({ token: t.admin.token, orgId: t.orgId });
  const invite = (email: string, role = 'viewer') =>
    api(app, 'POST', `/api/v1/organizations/${t.orgId}/invitations`, { ...asAdmin(), body: { email, role } });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  it(
    'invite → token shown once, ' + 'stored hashed → invitee accepts with matching email and becomes a member',
    async () => {
      const p = person();
      const inv = await invite(p.email, 'editor');
      expect(inv.status).toBe(201);
      expect(inv.body.data).toMatchObject({ email: p.email.toLowerCase(), role: 'editor', status: 'pending' });
      expect(inv.body.data.token).toMatch(/^inv_[0-9A-Za-z]{43}$/);
      // Expires in 7 days (INVITATION_TTL_HOURS default 168).
      const ttl = Date.parse(inv.body.data.expires_at) - Date.parse(inv.body.data.created_at);
      expect(Math.abs(ttl - 7 * 24 * 3600 * 1000)).toBeLessThan(5000);

      const row = await app.database.db('invitations').where({ id: inv.body.data.id }).first();
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(inv.body.data.token);
      const list = await api(app, 'GET', `/api/v1/organizations/${t.orgId}/invitations`, asAdmin());
      expect(JSON.stringify(list.body)).not.toContain(inv.body.data.token);
      expect(list.body.data.find((i: { id: string }) => i.id === inv.body.data.id).status).toBe('pending');

      const mine = await api(app, 'GET', '/api/v1/me/invitations', { token: p.token });
      expect(mine.body.data.map((i: { id: string }) => i.id)).toContain(inv.body.data.id);

      const acc = await api(app, 'POST', '/api/v1/invitations/accept', {
        token: p.token,
        body: { token: inv.body.data.token },
      });
      expect(acc.status).toBe(200);
      expect(acc.body.data).toMatchObject({ organization_id: t.orgId, role: 'editor' });
      const members = await api(app, 'GET', `/api/v1/organizations/${t.orgId}/members`, { token: p.token });
      expect(members.status).toBe(200);
      expect(members.body.data.find((m: { email: string }) => m.email === p.email)).toMatchObject({
        role: 'editor',
        is_owner: false,
      });
      // The new member now acts in the organization without naming it (their only one).
      expect((await api(app, 'GET', '/api/v1/projects', { token: p.token })).status).toBe(200);

      const again = await api(app, 'POST', '/api/v1/invitations/accept', {
        token: p.token,
        body: { token: inv.body.data.token },
      });
      expect([again.status, again.body.code]).toEqual([409, 'invitation_already_accepted']);
    },
  );

  it('accept by id works for the addressee only; other users see 404, wrong email with the token 403', async () => {
    const p = person();
    const stranger = person();
    const inv = (await invite(p.email)).body.data;
    expect((await api(app, 'POST', `/api/v1/invitations/${inv.id}/accept`, { token: stranger.token })).status).toBe(
      404,
    );
    const wrong = await api(app, 'POST', '/api/v1/invitations/accept', {
      token: stranger.token,
      body: { token: inv.token },
    });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'invitation_email_mismatch']);
    const ok = await api(app, 'POST', `/api/v1/invitations/${inv.id}/accept`, { token: p.token });
    expect(ok.status).toBe(200);
  });

  it('an explicitly unverified email cannot accept', async () => {
    const p = person(false);
    const inv = (await invite(p.email)).body.data;
    const r = await api(app, 'POST', '/api/v1/invitations/accept', { token: p.token, body: { token: inv.token } });
    expect([r.status, r.body.code]).toEqual([403, 'email_not_verified']);
  });

  it('expired invitations are refused with 410 and listed as expired', async () => {
    const p = person();
    const inv = (await invite(p.email)).body.data;
    await app.database
      .db('invitations')
      .where({ id: inv.id })
      .update({ expires_at: app.database.db.raw(`now() - interval '1 second'`) });
    const r = await api(app, 'POST', '/api/v1/invitations/accept', { token: p.token, body: { token: inv.token } });
    expect([r.status, r.body.code]).toEqual([410, 'invitation_expired']);
    const list = await api(app, 'GET', `/api/v1/organizations/${t.orgId}/invitations?status=expired`, asAdmin());
    expect(list.body.data.map((i: { id: string }) => i.id)).toContain(inv.id);
    expect((await api(app, 'GET', '/api/v1/me/invitations', { token: p.token })).body.data).toEqual([]);
  });

  it('revoked invitations are refused with 410; re-inviting replaces the pending one', async () => {
    const p = person();
    const first = (await invite(p.email)).body.data;
    const second = (await invite(p.email, 'editor')).body.data;
    const r1 = await api(app, 'POST', '/api/v1/invitations/accept', { token: p.token, body: { token: first.token } });
    expect([r1.status, r1.body.code]).toEqual([410, 'invitation_revoked']);
    const del = await api(app, 'DELETE', `/api/v1/organizations/${t.orgId}/invitations/${second.id}`, asAdmin());
    expect(del.body.data.status).toBe('revoked');
    const r2 = await api(app, 'POST', '/api/v1/invitations/accept', { token: p.token, body: { token: second.token } });
    expect(r2.status).toBe(410);
  });

  it('inviting an existing member is a 409; bad email/role is a 400', async () => {
    const r = await invite(t.viewer.email);
    expect([r.status, r.body.code]).toEqual([409, 'already_member']);
    expect((await invite('not-an-email')).status).toBe(400);
    expect((await invite('a@b.test', 'owner')).status).toBe(400);
  });

  it('admin changes roles and removes members; removed members lose access (404)', async () => {
    const p = person();
    const inv = (await invite(p.email, 'viewer')).body.data;
    await api(app, 'POST', '/api/v1/invitations/accept', { token: p.token, body: { token: inv.token } });
    const uid = (await api(app, 'GET', '/api/v1/me', { token: p.token })).body.data.user.id;
    const ch = await api(app, 'PATCH', `/api/v1/organizations/${t.orgId}/members/${uid}`, {
      ...asAdmin(),
      body: { role: 'editor' },
    });
    expect(ch.body.data).toEqual({ user_id: uid, role: 'editor' });
    expect(
      (await api(app, 'POST', '/api/v1/projects', { token: p.token, orgId: t.orgId, body: { name: 'by new editor' } }))
        .status,
    ).toBe(201);
    expect((await api(app, 'DELETE', `/api/v1/organizations/${t.orgId}/members/${uid}`, asAdmin())).status).toBe(200);
    expect((await api(app, 'GET', '/api/v1/projects', { token: p.token, orgId: t.orgId })).status).toBe(404);
    expect((await api(app, 'DELETE', `/api/v1/organizations/${t.orgId}/members/${uid}`, asAdmin())).status).toBe(404);
    expect(
      (
        await api(app, 'PATCH', `/api/v1/organizations/${t.orgId}/members/not-a-uuid`, {
          ...asAdmin(),
          body: { role: 'viewer' },
        })
      ).status,
    ).toBe(404);
  });

  it(
    'the last admin cannot be demoted or removed (409 last_admin); ' + 'the owner stays admin until ownership moves',
    async () => {
      const solo = await seedTenant(app);
      const path = `/api/v1/organizations/${solo.orgId}/members/${solo.admin.userId}`;
      const as = { token: solo.admin.token, orgId: solo.orgId };
      const demote = await api(app, 'PATCH', path, { ...as, body: { role: 'viewer' } });
      expect([demote.status, demote.body.code]).toEqual([409, 'last_admin']);
      const remove = await api(app, 'DELETE', path, as);
      expect([remove.status, remove.body.code]).toEqual([409, 'last_admin']);

      // Promote the editor: now two admins. The owner still cannot be demoted or removed...
      await api(app, 'PATCH', `/api/v1/organizations/${solo.orgId}/members/${solo.editor.userId}`, {
        ...as,
        body: { role: 'admin' },
      });
      expect((await api(app, 'PATCH', path, { ...as, body: { role: 'viewer' } })).body.code).toBe(
        'owner_must_be_admin',
      );
      expect((await api(app, 'DELETE', path, as)).body.code).toBe('owner_cannot_be_removed');
      // ...until ownership is transferred; then the old owner can be demoted, and the new owner can delete the
      // workspace.
      const tr = await api(app, 'POST', `/api/v1/organizations/${solo.orgId}/transfer-ownership`, {
        ...as,
        body: { user_id: solo.editor.userId },
      });
      expect(tr.status).toBe(200);
      expect(tr.body.data.owner_user_id).toBe(solo.editor.userId);
      expect((await api(app, 'PATCH', path, { ...as, body: { role: 'viewer' } })).status).toBe(200);
      // The last admin (new owner) is protected again.
      const last = await api(app, 'DELETE', `/api/v1/organizations/${solo.orgId}/members/${solo.editor.userId}`, {
        token: solo.editor.token,
        orgId: solo.orgId,
      });
      expect(last.body.code).toBe('last_admin');
      // A non-owner admin cannot delete the workspace; the owner can.
      const del = await api(app, 'DELETE', `/api/v1/organizations/${solo.orgId}`, { token: solo.editor.token });
      expect(del.status).toBe(200);
      expect((await api(app, 'GET', `/api/v1/organizations/${solo.orgId}`, { token: solo.editor.token })).status).toBe(
        404,
      );
    },
  );

  it(
    'organization context: 400 naming X-Organization-Id when ambiguous; ' + '404 for a foreign or malformed header',
    async () => {
      const u = person();
      const none = await api(app, 'GET', '/api/v1/projects', { token: u.token });
      expect([none.status, none.body.code, none.body.header]).toEqual([
        400,
        'organization_required',
        'X-Organization-Id',
      ]);
      // The admin of t also owns nothing else; give them a second membership to make the choice ambiguous.
      const other = await seedTenant(app);
      const inv = (
        await api(app, 'POST', `/api/v1/organizations/${other.orgId}/invitations`, {
          token: other.admin.token,
          body: { email: t.viewer.email, role: 'viewer' },
        })
      ).body.data;
      await api(app, 'POST', '/api/v1/invitations/accept', { token: t.viewer.token, body: { token: inv.token } });
      const amb = await api(app, 'GET', '/api/v1/projects', { token: t.viewer.token });
      expect([amb.status, amb.body.code]).toEqual([400, 'organization_required']);
      expect(amb.body.error).toMatch(/X-Organization-Id/);
      expect((await api(app, 'GET', '/api/v1/projects', { token: t.viewer.token, orgId: other.orgId })).status).toBe(
        200,
      );
      expect((await api(app, 'GET', '/api/v1/projects', { token: u.token, orgId: t.orgId })).status).toBe(404);
      expect((await api(app, 'GET', '/api/v1/projects', { token: u.token, orgId: 'nope' })).status).toBe(400);
    },
  );
});
