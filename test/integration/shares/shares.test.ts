import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { requestRow, writeRows } from '../analytics/seed';

/** Shares: one resource read-only by token, expiry, revoke, redaction, view counts, nothing else reachable. */
describe('shares', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let requestId: string;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });
  const share = (body: Record<string, unknown>) => api(app, 'POST', '/api/v1/shares', { ...ed(), body });
  type Opened = Record<string, unknown> & { data: { resource: unknown; saved_filter?: unknown } };
  const open = (token: string, suffix = '') =>
    fetch(`${app.url}/share/${token}${suffix}`).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Opened,
    }));

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const row = requestRow(
      { orgId: t.orgId, projectId: t.projectId },
      {
        log_mode: 'full',
        request_body: '{"messages":[{"role":"user","content":"secret plan"}]}',
        response_body: '{"choices":[]}',
        session_id: 'sess-1',
      },
    );
    await writeRows(app.database.db, [row]);
    requestId = row.id;
    const now = new Date().toISOString();
    await api(app, 'POST', '/ingest/traces', {
      token: t.fullKey,
      body: {
        id: 'tr-1',
        name: 'agent',
        start_time: now,
        session_id: 'sess-1',
        input: { q: 'secret plan' },
        output: { a: 'done' },
      },
    });
    await api(app, 'POST', '/ingest/spans', {
      token: t.fullKey,
      body: { id: 'sp-1', trace_id: 'tr-1', name: 'llm', start_time: now, input: { p: 'secret plan' } },
    });
  });
  afterAll(() => app?.stop());

  it('shows the one resource to anyone with the token, counts views, and redacts bodies when asked', async () => {
    const s = (await share({ resource_type: 'trace', resource_id: 'tr-1' })).body.data;
    expect(s).toMatchObject({
      token: expect.stringMatching(/^shr_/),
      url: expect.stringMatching(/\/share\/shr_/),
      view_count: 0,
    });
    expect(await app.database.db('shares').where({ token_hash: s.token }).first()).toBeUndefined(); // stored hashed
    const v = await open(s.token);
    expect(v.status).toBe(200);
    expect(v.body.data).toMatchObject({
      resource_type: 'trace',
      resource: { id: 'tr-1', input: { q: 'secret plan' }, spans: [{ id: 'sp-1' }] },
    });
    await open(s.token);
    expect(
      (await api(app, 'GET', '/api/v1/shares', ed())).body.data.find((x: { id: string }) => x.id === s.id),
    ).toMatchObject({ view_count: 2, last_viewed_at: expect.any(String) });
    expect((await api(app, 'GET', '/api/v1/shares', ed())).body.data[0].token).toBeUndefined();

    const red = (await share({ resource_type: 'request', resource_id: requestId, redact_bodies: true })).body.data;
    const r = (await open(red.token)).body.data.resource;
    expect(r).toMatchObject({ id: requestId, request_body: '[redacted]', response_body: '[redacted]' });
    const sess = (await share({ resource_type: 'session', resource_id: 'sess-1', redact_bodies: true })).body.data;
    expect(JSON.stringify((await open(sess.token)).body)).not.toContain('secret plan');
  });

  it('expired, revoked and unknown tokens are the same 404; nothing else is reachable through a share', async () => {
    const s = (
      await share({
        resource_type: 'request',
        resource_id: requestId,
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      })
    ).body.data;
    expect((await open(s.token)).status).toBe(200);
    await app.database
      .db('shares')
      .where({ id: s.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await open(s.token);
    const unknown = await open('shr_nope');
    expect([expired.status, unknown.status]).toEqual([404, 404]);
    expect(expired.body).toEqual(unknown.body);
    const live = (await share({ resource_type: 'trace', resource_id: 'tr-1' })).body.data;
    expect((await api(app, 'DELETE', `/api/v1/shares/${live.id}`, ed())).body.data.revoked_at).toEqual(
      expect.any(String),
    );
    expect((await open(live.token)).status).toBe(404);
    const again = (await share({ resource_type: 'trace', resource_id: 'tr-1' })).body.data;
    expect((await open(again.token, '/spans/sp-1')).status).toBe(404);
    expect(
      (await fetch(`${app.url}/api/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${again.token}` } }))
        .status,
    ).toBe(401);
    expect(
      await app.database
        .db('audit_logs')
        .whereIn('action', ['share.created', 'share.revoked'])
        .where({ org_id: t.orgId }),
    ).toHaveLength(7);
  });

  it('refuses what does not exist or is another organization’s, and a past expiry', async () => {
    expect((await share({ resource_type: 'trace', resource_id: 'nope' })).status).toBe(404);
    expect(
      (await share({ resource_type: 'request', resource_id: requestId, expires_at: '2020-01-01T00:00:00Z' })).body.code,
    ).toBe('invalid_expiry');
    expect(
      (
        await api(app, 'POST', '/api/v1/shares', {
          token: other.admin.token,
          orgId: other.orgId,
          body: { resource_type: 'request', resource_id: requestId },
        })
      ).status,
    ).toBe(404);
    const filter = (
      await api(app, 'POST', '/api/v1/saved-filters', {
        ...ed(),
        body: {
          name: 'daily',
          view: 'stats',
          filter: { granularity: 'day', model: 'gpt-4o', top: 5, project_id: t.projectId },
          visibility: 'private',
        },
      })
    ).body.data.id;
    const st = (await share({ resource_type: 'stats_view', resource_id: filter })).body.data;
    const shown = (await open(st.token)).body.data;
    expect(shown.resource).toMatchObject({ view: 'requests', granularity: { unit: 'day' } });
    // The saved filter's name and parameters come along (numbers as text); not its owner, ids or project.
    expect(shown.saved_filter).toEqual({ name: 'daily', filter: { granularity: 'day', model: 'gpt-4o', top: '5' } });
    for (const hidden of [t.editor.userId, filter, t.projectId]) expect(JSON.stringify(shown)).not.toContain(hidden);
    const trace = (await share({ resource_type: 'trace', resource_id: 'tr-1' })).body.data;
    expect((await open(trace.token)).body.data).not.toHaveProperty('saved_filter'); // a stats view's alone
  });

  it(
    'infers the project from the resource when project_id is absent, ' + 'in an organization with several projects',
    async () => {
      const second = (await api(app, 'POST', '/api/v1/projects', { ...ed(), body: { name: 'second' } })).body.data
        .id as string;
      const row = requestRow({ orgId: t.orgId, projectId: second }, { session_id: 'sess-2' });
      await writeRows(app.database.db, [row]);
      const key = (await api(app, 'POST', '/api/v1/api-keys', { ...ed(), body: { project_id: second } })).body.data
        .key as string;
      const now = new Date().toISOString();
      for (const id of ['tr-2', 'tr-dup'])
        await api(app, 'POST', '/ingest/traces', {
          token: key,
          body: { id, name: 'agent', start_time: now, session_id: 'sess-2' },
        });
      await api(app, 'POST', '/ingest/traces', {
        token: t.fullKey,
        body: { id: 'tr-dup', name: 'agent', start_time: now },
      });
      const filter = (
        await api(app, 'POST', '/api/v1/saved-filters', {
          ...ed(),
          body: { project_id: second, name: 'second daily', view: 'stats', filter: { granularity: 'day' } },
        })
      ).body.data.id;

      const made = async (body: Record<string, unknown>) => {
        const r = await share(body);
        expect({ body, status: r.status }).toEqual({ body, status: 201 });
        return r.body.data;
      };
      expect((await made({ resource_type: 'request', resource_id: row.id })).project_id).toBe(second);
      expect((await made({ resource_type: 'request', resource_id: requestId })).project_id).toBe(t.projectId);
      expect((await made({ resource_type: 'trace', resource_id: 'tr-2' })).project_id).toBe(second);
      expect((await made({ resource_type: 'session', resource_id: 'sess-2' })).project_id).toBe(second);
      expect((await made({ resource_type: 'stats_view', resource_id: filter })).project_id).toBe(second);
      const s = await made({ resource_type: 'request', resource_id: row.id.toUpperCase() });
      expect((await open(s.token)).body.data.resource).toMatchObject({ id: row.id, project_id: second });

      // tr-dup is a trace id in both projects (clients choose trace ids): the caller says which.
      const both = await share({ resource_type: 'trace', resource_id: 'tr-dup' });
      expect(both.status).toBe(400);
      expect(both.body).toMatchObject({
        success: false,
        code: 'project_id_required',
        error: expect.stringContaining('2 projects'),
      });
      expect((await made({ resource_type: 'trace', resource_id: 'tr-dup', project_id: second })).project_id).toBe(
        second,
      );
      expect((await share({ resource_type: 'request', resource_id: row.id, project_id: t.projectId })).status).toBe(
        404,
      );

      // Another organization's resource is not found, whatever its kind.
      const theirs = requestRow({ orgId: other.orgId, projectId: other.projectId });
      await writeRows(app.database.db, [theirs]);
      expect((await share({ resource_type: 'request', resource_id: theirs.id })).status).toBe(404);
      expect(
        (await share({ resource_type: 'request', resource_id: '3f2b6c1e-8a4d-4c1b-9f0e-2d7a5b8c9e10' })).status,
      ).toBe(404);
      expect((await share({ resource_type: 'session', resource_id: 'no-such-session' })).status).toBe(404);
      expect(
        (await share({ resource_type: 'experiment_comparison', resource_id: `${row.id},${requestId}` })).status,
      ).toBe(404);
    },
  );

  describe('role matrix', () => {
    let id: string;
    beforeAll(async () => {
      id = (await share({ resource_type: 'trace', resource_id: 'tr-1' })).body.data.id;
    });
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /shares', method: 'GET', path: () => '/api/v1/shares' },
        {
          name: 'POST /shares',
          method: 'POST',
          path: () => '/api/v1/shares',
          write: true,
          ok: 201,
          body: { resource_type: 'trace', resource_id: 'tr-1' },
        },
        { name: 'DELETE /shares/:id', method: 'DELETE', path: () => `/api/v1/shares/${id}`, write: true },
      ],
    );
  });
});
