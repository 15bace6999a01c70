import { randomUUID } from 'node:crypto';
import { scheduleId } from '../../../src/temporal/schedules';
import { recommendationsWorkflow } from '../../../workflows';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeReadMatrix } from '../../helpers/read-matrix';
import { requestRow, writeRows } from '../analytics/seed';
import type { RequestRow } from '../../../src/requests/row';

const NOW = Date.parse('2026-08-20T12:00:00Z');
const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('recommendations', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let quiet: string;
  let synthetic: { mine: string; theirs: string };
  const run = async (at: number) =>
    app.runtime.ctx.temporal.client.workflow.execute(recommendationsWorkflow, {
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      workflowId: `rec-${randomUUID()}`,
      args: [iso(at)],
    });
  // The matrix's synthetic row is left out: it belongs to the role matrix, not to these runs.
  const list = async (qs: string) =>
    (
      (await api(app, 'GET', `/api/v1/recommendations?${qs}`, { token: t.admin.token, orgId: t.orgId })).body
        .data as Record<string, unknown>[]
    ).filter((r) => r.id !== synthetic.mine);
  const shortGpt4o = (base: { orgId: string; projectId: string }, n: number, start: number) =>
    Array.from({ length: n }, (_, i) =>
      requestRow(base, {
        created_at: iso(start + i * 60_000),
        model: 'gpt-4o',
        prompt_tokens: 1000,
        completion_tokens: 200,
        total_tokens: 1200,
        cost_usd: 0.0045,
      }),
    );

  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    quiet = (
      await api(app, 'POST', '/api/v1/projects', { token: t.admin.token, orgId: t.orgId, body: { name: 'quiet' } })
    ).body.data.id;
    const db = app.database.db;
    const base = { orgId: t.orgId, projectId: t.projectId };
    const [prompt] = await db('prompts')
      .insert({ org_id: t.orgId, project_id: t.projectId, name: 'greeter' })
      .returning('id');
    const [v1, v2] = await db('prompt_versions')
      .insert(
        [1, 2].map((version) => ({
          prompt_id: prompt.id,
          project_id: t.projectId,
          version,
          content: JSON.stringify({ text: 'hi' }),
        })),
      )
      .returning('id');
    const day = NOW - 3 * 24 * H;
    const rows: RequestRow[] = [
      // 80 short and 20 long gpt-4o calls.
      ...shortGpt4o(base, 80, day),
      ...Array.from({ length: 20 }, (_, i) =>
        requestRow(base, {
          created_at: iso(day + H + i * 60_000),
          model: 'gpt-4o',
          prompt_tokens: 5000,
          completion_tokens: 1000,
          total_tokens: 6000,
          cost_usd: 0.0225,
        }),
      ),
      // The same body 12 times within a day, stored (full mode), never a cache hit.
      ...Array.from({ length: 12 }, (_, i) =>
        requestRow(base, {
          created_at: iso(day + 2 * H + i * 600_000),
          log_mode: 'full',
          request_body: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"status?"}]}',
          cost_usd: 0.01,
        }),
      ),
      // Prompt greeter: version 2 sends 500 more prompt tokens a call.
      ...Array.from({ length: 30 }, (_, i) =>
        requestRow(base, { created_at: iso(day - 24 * H + i * 60_000), prompt_version_id: v1.id, prompt_tokens: 400 }),
      ),
      ...Array.from({ length: 40 }, (_, i) =>
        requestRow(base, { created_at: iso(day + 3 * H + i * 60_000), prompt_version_id: v2.id, prompt_tokens: 900 }),
      ),
      // An end user hitting the rate limit, and long unstreamed completions.
      ...Array.from({ length: 12 }, (_, i) =>
        requestRow(base, {
          created_at: iso(day + 4 * H + i * 1000),
          user_id: 'hammer',
          status_code: 429,
          cost_usd: null,
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        requestRow(base, {
          created_at: iso(day + 5 * H + i * 60_000),
          provider: 'anthropic',
          model: 'claude-sonnet-4-20250514',
          latency_ms: 20_000,
          completion_tokens: 800,
          total_tokens: 810,
          cost_usd: 0.012,
        }),
      ),
    ];
    await writeRows(db, rows);
    // An ordinary project: a few calls, nothing to say.
    await writeRows(
      db,
      Array.from({ length: 30 }, (_, i) =>
        requestRow({ orgId: t.orgId, projectId: quiet }, { created_at: iso(day + i * 60_000) }),
      ),
    );
    const row = (orgId: string, projectId: string) => ({
      org_id: orgId,
      project_id: projectId,
      kind: 'cache_repeats',
      subject: `s-${randomUUID()}`,
      title: 't',
      detail: 'd',
      evidence: '{}',
      monthly_saving_usd: 1,
      computed_at: iso(NOW + 100 * 24 * H),
    });
    const [mine] = await db('recommendations').insert(row(t.orgId, t.projectId)).returning('id');
    const [theirs] = await db('recommendations').insert(row(other.orgId, other.projectId)).returning('id');
    synthetic = { mine: mine.id, theirs: theirs.id };
  });
  afterAll(() => app.stop());

  it('finds each kind with its evidence and a saving computed from the real token volumes', async () => {
    await run(NOW);
    const recs = await list(`project_id=${t.projectId}`);
    expect(recs.map((r) => [r.kind, r.subject])).toEqual([
      ['cheaper_model', 'openai/gpt-4o'],
      ['cache_repeats', 'project'],
      ['prompt_growth', 'greeter@2/gpt-4o-mini'],
      ['rate_limited', 'user:hammer'],
      ['stream_long_completions', 'claude-sonnet-4-20250514'],
    ]);
    const by = Object.fromEntries(recs.map((r) => [r.kind, r]));
    // gpt-4o $2.50/$10 per M, gpt-4o-mini $0.15/$0.60: 80 × (1000×2.5 + 200×10)/1e6 = $0.36 against
    // 80 × (1000×0.15 + 200×0.6)/1e6 = $0.0216 a week; × 30/7.
    expect(by.cheaper_model!.monthly_saving_usd).toBeCloseTo(((0.36 - 0.0216) * 30) / 7, 5);
    expect(by.cheaper_model!.evidence).toMatchObject({
      cheaper: 'gpt-4o-mini',
      calls: 100,
      short_calls: 80,
      short_prompt_tokens: 80_000,
    });
    // 11 repeats at $0.01.
    expect(by.cache_repeats!.monthly_saving_usd).toBeCloseTo((0.11 * 30) / 7, 5);
    expect(by.cache_repeats!.evidence).toMatchObject({ repeats: 11, distinct_bodies: 1 });
    // 500 more prompt tokens × 40 calls × $0.15 per M.
    expect(by.prompt_growth!.monthly_saving_usd).toBeCloseTo((500 * 40 * 0.15e-6 * 30) / 7, 6);
    expect(by.rate_limited).toMatchObject({ monthly_saving_usd: 0, evidence: { user_id: 'hammer', failures: 12 } });
    expect((by.rate_limited!.evidence as { sample_request_ids: string[] }).sample_request_ids).toHaveLength(5);
    expect(by.stream_long_completions).toMatchObject({
      monthly_saving_usd: 0,
      evidence: { calls: 10, latency_p50_ms: 20_000 },
    });
    expect(await list(`project_id=${quiet}`)).toEqual([]);
  });

  it('a dismissed one stays dismissed until its saving doubles; ones whose evidence is gone go away', async () => {
    const cheaper = (await list(`project_id=${t.projectId}&kind=cheaper_model`))[0]!;
    const d = await api(app, 'POST', `/api/v1/recommendations/${cheaper.id}/dismiss`, {
      token: t.editor.token,
      orgId: t.orgId,
    });
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({ status: 'dismissed', dismissed_by: expect.any(String) });
    expect(
      await app.database.db('audit_logs').where({ resource_id: cheaper.id, action: 'recommendation.dismissed' }),
    ).toHaveLength(1);
    await run(NOW + H);
    expect((await list(`project_id=${t.projectId}&kind=cheaper_model`))[0]).toMatchObject({
      id: cheaper.id,
      status: 'dismissed',
    });
    // More than twice the short calls (exactly twice can round below): the saving doubles, it comes back.
    await writeRows(app.database.db, shortGpt4o({ orgId: t.orgId, projectId: t.projectId }, 90, NOW - 2 * 24 * H));
    await run(NOW + 2 * H);
    expect((await list(`project_id=${t.projectId}&kind=cheaper_model`))[0]).toMatchObject({
      id: cheaper.id,
      status: 'open',
    });
    // Eight days on, the window is empty: open ones are deleted, dismissed ones kept.
    await api(app, 'POST', `/api/v1/recommendations/${cheaper.id}/dismiss`, { token: t.admin.token, orgId: t.orgId });
    await run(NOW + 8 * 24 * H);
    expect((await list(`project_id=${t.projectId}`)).map((r) => [r.kind, r.status])).toEqual([
      ['cheaper_model', 'dismissed'],
    ]);
  });

  it('the worker keeps the hourly schedule', async () => {
    const d = await app.runtime.ctx.temporal.client.schedule
      .getHandle(scheduleId(app.config.TEMPORAL_TASK_QUEUE, 'recommendations'))
      .describe();
    expect(d.spec.intervals).toEqual([expect.objectContaining({ every: 3_600_000 })]);
    expect(d.action).toMatchObject({ workflowType: 'recommendationsWorkflow' });
  });

  describe('role matrix', () => {
    describeReadMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /api/v1/recommendations', method: 'GET', path: () => '/api/v1/recommendations' },
        {
          name: 'GET /api/v1/recommendations/:id',
          method: 'GET',
          path: () => `/api/v1/recommendations/${synthetic.mine}`,
          foreignPath: () => `/api/v1/recommendations/${synthetic.theirs}`,
        },
        {
          name: 'POST /api/v1/recommendations/:id/dismiss',
          method: 'POST',
          write: true,
          path: () => `/api/v1/recommendations/${synthetic.mine}/dismiss`,
          foreignPath: () => `/api/v1/recommendations/${synthetic.theirs}/dismiss`,
        },
      ],
    );
  });
});
