import type { ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { killWorkerChild, startWorkerChild } from '../../helpers/worker-child';
import { requestRow, writeRows } from '../analytics/seed';
import { waitUntil } from '../webhooks/fixtures';
import { seedEvaluators } from './setup';

/**
 * Eval runs end to end: the api starts `eval-run-<id>`, a worker in a child process runs it
 * against a fake judge provider, is SIGKILLed mid-run and replaced; every target ends scored
 * exactly once, malformed verdicts are item errors, 429s are retried, cancel stops a run.
 */
describe('eval runs', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let worker: ChildProcess | undefined;
  let judgeDelay = 20;
  const flaky = new Set<string>();
  const evaluators: Record<string, string> = {};
  const hour = 3_600_000;
  const range = { from: new Date(Date.now() - 2 * hour).toISOString(), to: new Date(Date.now() + hour).toISOString() };
  const admin = () => ({ token: t.admin.token, orgId: t.orgId });
  const run = (id: string) => api(app, 'GET', `/api/v1/eval-runs/${id}`, admin()).then((r) => r.body.data);
  const workerEnv = () => ({
    DATABASE_URL: app.database.url,
    MASTER_KEY: app.config.MASTER_KEY!,
    AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
    TEMPORAL_TASK_QUEUE: app.config.TEMPORAL_TASK_QUEUE,
    PROVIDER_OPENAI_BASE_URL: upstream.url,
    LOG_LEVEL: 'silent',
  });

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.handle(async (req, res) => {
      const prompt = JSON.stringify(req.json?.messages ?? []);
      const q = /q-(\d+)/.exec(prompt)?.[1] ?? '';
      await new Promise((r) => setTimeout(r, judgeDelay));
      // A provider hiccup: the first call for a flaky target is a 429.
      if (prompt.includes('FLAKY') && !flaky.has(q))
        return (flaky.add(q), sendJson(res, 429, { error: { message: 'slow down' } }));
      const content = prompt.includes('MALFORMED')
        ? 'I would say it is fine.'
        : JSON.stringify({ score: 0.7, reasoning: `looks right (${q})` });
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      });
    });
    app = await startTestApp({ role: 'api', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    t = await seedTenant(app);
    const rows = Array.from({ length: 200 }, (_, i) => {
      const tag = i < 3 ? ' MALFORMED' : i < 5 ? ' FLAKY' : '';
      return requestRow(
        { orgId: t.orgId, projectId: t.projectId },
        {
          log_mode: 'full',
          created_at: new Date(Date.now() - i * 1000).toISOString(),
          request_body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `q-${i}${tag}` }] }),
          response_body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: `answer ${i}` } }] }),
        },
      );
    });
    await writeRows(app.database.db, rows);
    Object.assign(evaluators, await seedEvaluators(app, t));
    // Runs and online ticks need a worker (the first test kills this one and starts another).
    worker = await startWorkerChild(workerEnv());
  });
  afterAll(async () => {
    if (worker) await killWorkerChild(worker, 'SIGKILL');
    await app?.stop();
    await upstream?.close();
  });

  it(
    'survives a worker killed mid-run: every target scored ' +
      'exactly once, malformed verdicts are errors, 429s retried',
    async () => {
      const started = await api(app, 'POST', '/api/v1/eval-runs', {
        token: t.fullKey,
        body: {
          evaluator_ids: [evaluators.contains, evaluators.judge],
          target: { kind: 'requests', ...range, limit: 500 },
          concurrency: 4,
        },
      });
      expect(started.status).toBe(201);
      const id = started.body.data.id as string;
      await waitUntil(async () => (await run(id)).counts.completed >= 80, 60_000, 'some items done');
      await killWorkerChild(worker!, 'SIGKILL');
      worker = await startWorkerChild(workerEnv());
      const done = await waitUntil(
        async () => ((await run(id)).status === 'completed' ? run(id) : undefined),
        120_000,
        'the run to complete',
      );
      expect(done).toMatchObject({
        total: 400,
        counts: { completed: 397, error: 3, pending: 0, delayed: 0 },
        progress: 1,
      });
      expect(done.scores).toEqual(
        expect.arrayContaining([
          { evaluator_id: evaluators.contains, count: 200, average: 1 },
          { evaluator_id: evaluators.judge, count: 197, average: 0.7 },
        ]),
      );
      expect(done.judge_cost_usd).toBeGreaterThan(0);
      const db = app.database.db;
      const dupes = await db('scores')
        .where({ project_id: t.projectId, source: 'eval' })
        .select('name', 'request_id')
        .count('* as n')
        .groupBy('name', 'request_id')
        .havingRaw('count(*) > 1');
      expect(dupes).toEqual([]);
      expect(
        await db('scores')
          .where({ project_id: t.projectId, source: 'eval' })
          .count('* as n')
          .first()
          .then((r) => Number(r?.n)),
      ).toBe(397);
      expect(flaky.size).toBe(2);
      const errors = (await api(app, 'GET', `/api/v1/eval-runs/${id}/results?status=error`, admin())).body.data;
      expect(errors).toHaveLength(3);
      expect(errors[0]).toMatchObject({
        evaluator_id: evaluators.judge,
        error: expect.stringContaining('did not answer JSON'),
      });
      // Every judge call is a request row of the project, tagged with its evaluator, run and target.
      const judged = await db('requests')
        .where({ project_id: t.projectId })
        .whereRaw(`properties->>'eval.run' = ?`, [id]);
      expect(judged.length).toBeGreaterThanOrEqual(200);
      expect(judged[0]).toMatchObject({
        provider: 'openai',
        model: 'gpt-4o-mini',
        status_code: expect.any(Number),
        properties: expect.objectContaining({
          'eval.evaluator': evaluators.judge,
          'eval.target': expect.stringMatching(/^request:/),
        }),
      });
      // The scores show on the request read; the workflow carries the project as a search attribute.
      const firstTarget = (
        await db('eval_run_items').where({ run_id: id, status: 'completed', evaluator_id: evaluators.judge }).first()
      ).target_id;
      expect(
        (await api(app, 'GET', `/api/v1/requests/${firstTarget}`, admin())).body.data.scores
          .map((s: { name: string }) => s.name)
          .sort(),
      ).toEqual(['helpfulness', 'mentions-answer']);
      const wf = await app.runtime.ctx.temporal.client.workflow.getHandle(`eval-run-${id}`).describe();
      expect(wf.searchAttributes.ProjectId).toEqual([t.projectId]);
      // the Web UI's list line
      expect(await wf.staticSummary()).toMatch(/^eval run .+, .+: up to \d+ requests × 2 evaluators$/);
      // Judge calls are not targets of later runs.
      expect(
        (
          await api(app, 'POST', '/api/v1/eval-runs', {
            token: t.fullKey,
            body: { evaluator_ids: [evaluators.contains], target: { kind: 'requests', ...range, limit: 10_000 } },
          })
        ).body.data.status,
      ).toMatch(/pending|running|completed/);
    },
    240_000,
  );

  it('cancel stops a run; finished items keep their scores', async () => {
    judgeDelay = 300;
    const started = await api(app, 'POST', '/api/v1/eval-runs', {
      token: t.fullKey,
      body: { evaluator_ids: [evaluators.judge], target: { kind: 'requests', ...range, limit: 200 }, concurrency: 1 },
    });
    const id = started.body.data.id as string;
    await waitUntil(async () => (await run(id)).counts.completed >= 1, 30_000, 'a first item');
    const c = await api(app, 'POST', `/api/v1/eval-runs/${id}/cancel`, { token: t.editor.token, orgId: t.orgId });
    expect(c.body.data.status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 1500));
    const after = await run(id);
    expect(after.status).toBe('cancelled');
    expect(after.counts.completed).toBeLessThan(20);
    const wf = await app.runtime.ctx.temporal.client.workflow.getHandle(`eval-run-${id}`).describe();
    expect(wf.status.name).toBe('CANCELLED');
    judgeDelay = 20;
  }, 60_000);

  it(
    'online: new matching requests and completed traces ' + 'are scored as they arrive, sampled; 0.0 scores none',
    async () => {
      const create = async (body: Record<string, unknown>) =>
        (await api(app, 'POST', '/api/v1/evaluators', { token: t.fullKey, body })).body.data;
      const all = await create({
        name: 'online-all',
        type: 'contains',
        config: { value: 'answer' },
        online: { kind: 'requests', sampling_rate: 1, filter: { model: 'gpt-4o' } },
      });
      const none = await create({
        name: 'online-none',
        type: 'contains',
        config: { value: 'answer' },
        online: { kind: 'requests', sampling_rate: 0 },
      });
      const traces = await create({
        name: 'online-traces',
        type: 'contains',
        config: { value: 'shipped' },
        online: { kind: 'traces', sampling_rate: 1 },
      });
      expect(all.online_run_id).toEqual(expect.any(String));
      const fresh = Array.from({ length: 6 }, (_, i) =>
        requestRow(
          { orgId: t.orgId, projectId: t.projectId },
          {
            model: i < 4 ? 'gpt-4o' : 'gpt-4o-mini',
            log_mode: 'full',
            request_body: '{"messages":[{"role":"user","content":"hi"}]}',
            response_body: '{"choices":[{"message":{"content":"the answer"}}]}',
          },
        ),
      );
      await writeRows(app.database.db, fresh);
      const now = new Date().toISOString();
      await api(app, 'POST', '/ingest/traces', {
        token: t.fullKey,
        body: {
          id: 'online-trace',
          name: 'agent',
          start_time: now,
          end_time: now,
          status: 'completed',
          output: { text: 'it shipped today' },
        },
      });
      const tick = () =>
        app.runtime.ctx.temporal.client.workflow.execute('onlineEvaluationWorkflow', {
          taskQueue: app.config.TEMPORAL_TASK_QUEUE,
          workflowId: `online-${Math.random()}`,
          args: [new Date(Date.now() + 60_000).toISOString()],
        });
      await tick();
      const scores = async (name: string) =>
        app.database.db('scores').where({ project_id: t.projectId, name, source: 'eval' });
      expect((await scores('online-all')).map((s) => s.request_id).sort()).toEqual(
        fresh
          .slice(0, 4)
          .map((r) => r.id)
          .sort(),
      );
      expect(await scores('online-none')).toEqual([]);
      expect((await scores('online-traces')).map((s) => [s.trace_id, s.value])).toEqual([['online-trace', 1]]);
      // The next tick finds nothing new: nothing is scored twice.
      await tick();
      expect(await scores('online-all')).toHaveLength(4);
      expect((await run(all.online_run_id)).counts).toMatchObject({ completed: 4, pending: 0 });
      // A rolling run is not cancelled on its own (nothing would stop the schedule feeding it)…
      const cancel = await api(app, 'POST', `/api/v1/eval-runs/${all.online_run_id}/cancel`, { token: t.fullKey });
      expect([cancel.status, cancel.body.code]).toEqual([409, 'online_run']);
      // …turned off, the evaluator's rolling run stops.
      await api(app, 'PATCH', `/api/v1/evaluators/${all.id}`, { token: t.fullKey, body: { online: null } });
      expect((await run(all.online_run_id)).status).toBe('completed');
      expect(none.online).toMatchObject({ sampling_rate: 0 });
      expect(traces.online).toMatchObject({ kind: 'traces' });
    },
    60_000,
  );
});
