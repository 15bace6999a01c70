import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { requestRow, writeRows } from '../analytics/seed';
import { waitUntil } from '../webhooks/fixtures';

/**
 * Drills of two eval-run defects: a run cancelled while a judge call is in flight must not change
 * afterwards (the call's result is discarded), and every judge call made is in the run's
 * `judge_cost_usd`, malformed verdicts included.
 */
describe('eval runs: cancel race and judge cost', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let judge: string;
  let judgeDelay = 0;
  // The fake judge's usage: gpt-4o-mini costs $0.15 per million input tokens, $0.60 per million output.
  const USAGE = { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 };
  const CALL_USD = (20 * 0.15 + 3 * 0.6) / 1e6;
  const hour = 3_600_000;
  const run = (id: string) =>
    api(app, 'GET', `/api/v1/eval-runs/${id}`, { token: t.admin.token, orgId: t.orgId }).then((r) => r.body.data);
  const start = (from: number, n: number, concurrency: number) =>
    api(app, 'POST', '/api/v1/eval-runs', {
      token: t.fullKey,
      body: {
        evaluator_ids: [judge],
        target: {
          kind: 'requests',
          from: new Date(from).toISOString(),
          to: new Date(from + n * 1000).toISOString(),
          limit: 100,
        },
        concurrency,
      },
    });
  const judgeRows = (runId: string) =>
    app.database.db('requests').where({ project_id: t.projectId }).whereRaw(`properties->>'eval.run' = ?`, [runId]);

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.handle(async (req, res) => {
      const prompt = JSON.stringify(req.json?.messages ?? []);
      await new Promise((r) => setTimeout(r, judgeDelay));
      const content = prompt.includes('MALFORMED')
        ? 'I would say it is fine.'
        : JSON.stringify({ score: 0.5, reasoning: 'fine' });
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: USAGE,
      });
    });
    app = await startTestApp({ role: 'all', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    t = await seedTenant(app);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-judge-0123456789' },
    });
    judge = (
      await api(app, 'POST', '/api/v1/evaluators', {
        token: t.fullKey,
        body: {
          name: 'helpful',
          type: 'llm_judge',
          config: {
            provider: 'openai',
            model: 'gpt-4o-mini',
            template: 'Q: {{input}}\nA: {{output}}',
            output: { type: 'numeric', min: 0, max: 1 },
          },
        },
      })
    ).body.data.id;
  });
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
  });

  const seed = async (from: number, n: number, tag = (_i: number) => '') =>
    writeRows(
      app.database.db,
      Array.from({ length: n }, (_, i) =>
        requestRow(
          { orgId: t.orgId, projectId: t.projectId },
          {
            log_mode: 'full',
            created_at: new Date(from + i * 1000).toISOString(),
            request_body: JSON.stringify({ messages: [{ role: 'user', content: `q-${i}${tag(i)}` }] }),
            response_body: JSON.stringify({ choices: [{ message: { content: `a-${i}` } }] }),
          },
        ),
      ),
    );

  it('a run cancelled while a judge call is in flight does not change afterwards', async () => {
    const from = Date.now() - 3 * hour;
    await seed(from, 5);
    judgeDelay = 800;
    upstream.requests.length = 0;
    const id = (await start(from, 5, 1)).body.data.id as string;
    await waitUntil(async () => upstream.requests.length >= 1, 15_000, 'the first judge call');
    const c = (await api(app, 'POST', `/api/v1/eval-runs/${id}/cancel`, { token: t.editor.token, orgId: t.orgId })).body
      .data;
    expect(c).toMatchObject({ status: 'cancelled', counts: { pending: 5, completed: 0, error: 0, delayed: 0 } });
    // The judge answers and its call is logged (spend is spend); its verdict must go nowhere.
    await waitUntil(async () => (await judgeRows(id)).length >= 1, 15_000, 'the judge call to finish');
    await new Promise((r) => setTimeout(r, 500));
    expect(await run(id)).toMatchObject({
      status: 'cancelled',
      counts: c.counts,
      judge_cost_usd: c.judge_cost_usd,
      finished_at: c.finished_at,
    });
    expect(await app.database.db('scores').where({ project_id: t.projectId, source: 'eval' })).toEqual([]);
    expect(upstream.requests).toHaveLength(1);
    judgeDelay = 0;
  }, 30_000);

  it('judge_cost_usd counts every judge call, malformed verdicts included', async () => {
    const from = Date.now() - 5 * hour;
    await seed(from, 4, (i) => (i === 2 ? ' MALFORMED' : ''));
    const id = (await start(from, 4, 4)).body.data.id as string;
    const done = await waitUntil(
      async () => ((r) => r.status === 'completed' && r)(await run(id)),
      20_000,
      'the run to complete',
    );
    expect(done.counts).toMatchObject({ completed: 3, error: 1 });
    const rows = await judgeRows(id);
    expect(rows.map((r) => Number(r.cost_usd))).toEqual(
      Array(4)
        .fill(CALL_USD)
        .map((c) => expect.closeTo(c, 12)),
    );
    expect(done.judge_cost_usd).toBeCloseTo(4 * CALL_USD, 12);
    // The failed item names the judge call it paid for.
    const [failed] = (
      await api(app, 'GET', `/api/v1/eval-runs/${id}/results?status=error`, { token: t.admin.token, orgId: t.orgId })
    ).body.data;
    expect(failed).toMatchObject({
      error: expect.stringContaining('did not answer JSON'),
      judge_request_id: expect.any(String),
    });
    expect(rows.map((r) => r.id)).toContain(failed.judge_request_id);
  }, 30_000);
});
