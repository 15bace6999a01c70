import type { ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { killWorkerChild, startWorkerChild } from '../../helpers/worker-child';
import { waitUntil } from '../webhooks/fixtures';
import { seedDataset } from './setup';

/**
 * Experiments: a prompt over a dataset version with 2 repetitions as a Temporal workflow whose
 * worker is SIGKILLed mid-run; an external subject posting outputs; the comparison checked by hand.
 */
describe('experiments', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let worker: ChildProcess | undefined;
  let delay = 15;
  let dataset: string;
  let exact: string;
  const calls = new Map<string, number>();
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });
  const get = async (id: string) => (await api(app, 'GET', `/api/v1/experiments/${id}`, ed())).body.data;
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
    // The model answers "answer q-<i>", except for items 0–9 where it is wrong.
    upstream.handle(async (req, res) => {
      const q = /q-(\d+)/.exec(JSON.stringify(req.json?.messages ?? []))?.[1] ?? '';
      calls.set(q, (calls.get(q) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, delay));
      const content = Number(q) < 10 ? 'no idea' : `answer q-${q}`;
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      });
    });
    app = await startTestApp({ role: 'api', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    t = await seedTenant(app);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-exp-0123456789' },
    });
    await api(app, 'POST', '/api/v1/prompts', {
      token: t.admin.token,
      orgId: t.orgId,
      body: {
        project_id: t.projectId,
        name: 'qa',
        version: { template: [{ role: 'user', content: 'Answer: {{question}}' }], model: 'gpt-4o-mini' },
      },
    });
    dataset = await seedDataset(app, t);
    exact = (
      await api(app, 'POST', '/api/v1/evaluators', {
        token: t.fullKey,
        body: { name: 'exact', type: 'exact_match', config: { expected_path: '$.expected' } },
      })
    ).body.data.id;
    // Every prompt experiment needs a worker (the first test kills this one and starts another).
    worker = await startWorkerChild(workerEnv());
  });
  afterAll(async () => {
    if (worker) await killWorkerChild(worker, 'SIGKILL');
    await app?.stop();
    await upstream?.close();
  });

  it(
    'runs 100 items × 2 repetitions across a worker killed ' + 'mid-run: every item run recorded and scored once',
    async () => {
      calls.clear(); // counts this test's model calls only, whatever ran before
      const r = await api(app, 'POST', '/api/v1/experiments', {
        ...ed(),
        body: {
          name: 'v1',
          dataset_id: dataset,
          subject: { kind: 'prompt', prompt: 'qa@latest', provider: 'openai' },
          evaluator_ids: [exact],
          repetitions: 2,
          concurrency: 4,
        },
      });
      expect(r.status).toBe(201);
      const runA = r.body.data.id as string;
      await waitUntil(async () => (await get(runA)).counts.completed >= 60, 60_000, 'some item runs');
      await killWorkerChild(worker!, 'SIGKILL');
      worker = await startWorkerChild(workerEnv());
      const done = await waitUntil(
        async () => ((await get(runA)).status === 'completed' ? get(runA) : undefined),
        120_000,
        'the experiment to complete',
      );
      expect(done).toMatchObject({
        counts: { completed: 200, error: 0, pending: 0 },
        scores: [{ name: 'exact', mean: 0.9, count: 200 }],
      });
      expect(done.cost_usd).toBeGreaterThan(0);
      const db = app.database.db;
      expect(Number((await db('scores').where({ experiment_id: runA }).count('* as n').first())!.n)).toBe(200);
      const dupes = await db('scores')
        .where({ experiment_id: runA })
        .select('experiment_item_id', 'experiment_repetition')
        .count('* as n')
        .groupBy('experiment_item_id', 'experiment_repetition')
        .havingRaw('count(*) > 1');
      expect(dupes).toEqual([]);
      // Model calls are at least once per run; only the few in flight when the worker died are repeated.
      const total = [...calls.values()].reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(200);
      expect(total).toBeLessThanOrEqual(204);
      const page = (await api(app, 'GET', `/api/v1/experiments/${runA}/items?limit=2`, ed())).body.data;
      expect(page[0]).toMatchObject({
        item_id: 'i000',
        repetition: 0,
        status: 'completed',
        output: 'no idea',
        scores: { exact: 0 },
        request_id: expect.any(String),
      });
      const req = await db('requests').where({ id: page[0].request_id }).first();
      expect(req.properties).toMatchObject({ 'experiment.id': runA, 'experiment.item': 'i000' });
      const wf = await app.runtime.ctx.temporal.client.workflow.getHandle(`experiment-${runA}`).describe();
      // the Web UI's list line
      expect(await wf.staticSummary()).toBe('experiment v1: 100 items × 2 repetitions, 1 evaluator');
    },
    240_000,
  );

  it('an external subject posts its outputs; the comparison counts regressions by hand', async () => {
    // Its baseline: the first test's experiment (wrong on items 0–9, 2 repetitions), without the crash.
    const subject = { kind: 'prompt', prompt: 'qa@latest', provider: 'openai' };
    const body = {
      name: 'baseline',
      dataset_id: dataset,
      subject,
      evaluator_ids: [exact],
      repetitions: 2,
      concurrency: 16,
    };
    const runA = (await api(app, 'POST', '/api/v1/experiments', { ...ed(), body })).body.data.id as string;
    await waitUntil(async () => (await get(runA)).status === 'completed', 60_000, 'the baseline to complete');
    const r = await api(app, 'POST', '/api/v1/experiments', {
      ...ed(),
      body: { name: 'my-app', dataset_id: dataset, subject: { kind: 'external' }, evaluator_ids: [exact] },
    });
    const runB = r.body.data.id as string;
    expect(r.body.data.status).toBe('awaiting_outputs');
    // Right on everything but items 10, 11 and 12 (which v1 got right): 97 of 100.
    const outputs = Array.from({ length: 100 }, (_, i) => ({
      item_id: `i${String(i).padStart(3, '0')}`,
      output: [10, 11, 12].includes(i) ? 'nope' : `answer q-${i}`,
      latency_ms: 100 + i,
      cost_usd: 0.001,
    }));
    for (let i = 0; i < 100; i += 50)
      expect(
        (
          await api(app, 'POST', `/api/v1/experiments/${runB}/outputs`, {
            ...ed(),
            body: { outputs: outputs.slice(i, i + 50) },
          })
        ).status,
      ).toBe(200);
    expect(await get(runB)).toMatchObject({
      status: 'completed',
      scores: [{ name: 'exact', mean: 0.97 }],
      latency_p50_ms: 149.5,
    });
    const c = (await api(app, 'GET', `/api/v1/experiments/compare?ids=${runA},${runB}`, ed())).body.data;
    expect(c.baseline).toBe(runA);
    const [a, b] = c.experiments;
    expect(a.aggregate.scores[0]).toMatchObject({ name: 'exact', mean: 0.9, n: 100 });
    // exact_match is boolean: Wilson's interval of p over n items, z = 1.959964, z² = 3.841459,
    // (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).
    // a: p = 0.9, n = 100: centre 0.9 + 0.019207 = 0.919207; z·√(0.0009 + 0.0000960365) = 1.959964·0.031560
    // = 0.061857; divisor 1.038415: [0.857351/1.038415, 0.981064/1.038415] = [0.825634, 0.944771].
    expect(a.aggregate.scores[0]).toMatchObject({ interval: 'wilson' });
    expect(a.aggregate.scores[0].ci_low).toBeCloseTo(0.825634, 5);
    expect(a.aggregate.scores[0].ci_high).toBeCloseTo(0.944771, 5);
    // b: p = 0.97, n = 100: centre 0.989207; z·√(0.000291 + 0.0000960365) = 1.959964·0.019673 = 0.038559:
    // [0.950648/1.038415, 1.027766/1.038415] = [0.915481, 0.989745]; it overlaps a's: not significant.
    expect(b.aggregate.scores[0].ci_low).toBeCloseTo(0.915481, 5);
    expect(b.aggregate.scores[0].ci_high).toBeCloseTo(0.989745, 5);
    expect(b.delta.scores).toEqual([{ name: 'exact', delta: 0.07 }]);
    expect(c.regressions.map((x: { item_id: string; delta: number }) => [x.item_id, x.delta])).toEqual([
      ['i010', -1],
      ['i011', -1],
      ['i012', -1],
    ]);
    expect(c.items.find((i: { item_id: string }) => i.item_id === 'i010').runs[runB]).toEqual({
      outputs: ['nope'],
      scores: { exact: 0 },
    });
    expect(
      (
        await api(app, 'POST', `/api/v1/experiments/${runB}/outputs`, {
          ...ed(),
          body: { outputs: [{ item_id: 'i000', output: 'x' }] },
        })
      ).body.code,
    ).toBe('experiment_closed');
    expect(
      (
        await api(app, 'POST', `/api/v1/experiments/${runA}/outputs`, {
          ...ed(),
          body: { outputs: [{ item_id: 'i000', output: 'x' }] },
        })
      ).body.code,
    ).toBe('not_external');
  });

  it('runs on the dataset version it was given; cancel stops a run', async () => {
    const v1 = (await api(app, 'GET', `/api/v1/datasets/${dataset}/versions`, ed())).body.data[0].version;
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, {
      ...ed(),
      body: { items: [{ id: 'i999', input: { question: 'q-999' } }] },
    });
    delay = 300;
    const r = await api(app, 'POST', '/api/v1/experiments', {
      ...ed(),
      body: {
        name: 'old',
        dataset_id: dataset,
        dataset_version: v1,
        subject: { kind: 'prompt', prompt: 'qa@1', provider: 'openai' },
        concurrency: 1,
      },
    });
    const id = r.body.data.id as string;
    expect(r.body.data.counts.pending).toBe(100);
    await waitUntil(async () => (await get(id)).counts.completed >= 1, 30_000, 'a first run');
    expect((await api(app, 'POST', `/api/v1/experiments/${id}/cancel`, ed())).body.data.status).toBe('cancelled');
    await new Promise((res) => setTimeout(res, 1000));
    expect((await get(id)).counts.completed).toBeLessThan(10);
    delay = 15;
  }, 60_000);
});
