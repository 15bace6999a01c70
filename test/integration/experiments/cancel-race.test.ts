import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { waitUntil } from '../webhooks/fixtures';

/**
 * A cancelled experiment does not change afterwards: an item run whose model call is in flight
 * at the cancel, or an external output whose judge call is, is dropped (no output, no score).
 */
describe('experiments: cancel while a call is in flight', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let dataset: string;
  let exact: string;
  let judge: string;
  const DELAY = 800;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });
  const get = async (id: string) => (await api(app, 'GET', `/api/v1/experiments/${id}`, ed())).body.data;
  const calls = (id: string) =>
    app.database.db('requests').where({ project_id: t.projectId }).whereRaw(`properties->>'experiment.id' = ?`, [id]);
  const frozen = async (id: string, before: unknown) => {
    // The call in flight answers and is logged (spend is spend); nothing else may change.
    await waitUntil(async () => (await calls(id)).length >= 1, 15_000, 'the call to finish');
    await new Promise((r) => setTimeout(r, 500));
    expect(await get(id)).toEqual(before);
    expect(await app.database.db('scores').where({ experiment_id: id })).toEqual([]);
    expect(
      (await app.database.db('experiment_items').where({ experiment_id: id })).map((i) => [i.status, i.output]),
    ).toEqual(Array(3).fill(['pending', null]));
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.handle(async (req, res) => {
      const prompt = JSON.stringify(req.json?.messages ?? []);
      await new Promise((r) => setTimeout(r, DELAY));
      const content = prompt.includes('Answer with only a JSON object')
        ? JSON.stringify({ score: 1, reasoning: 'ok' })
        : 'answer';
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
      });
    });
    app = await startTestApp({ role: 'all', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    t = await seedTenant(app);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-exp-0123456789' },
    });
    dataset = (await api(app, 'POST', '/api/v1/datasets', { ...ed(), body: { name: 'qa' } })).body.data.id;
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, {
      ...ed(),
      body: {
        items: [0, 1, 2].map((i) => ({ id: `i${i}`, input: { question: `q-${i}` }, expected_output: 'answer' })),
      },
    });
    exact = (
      await api(app, 'POST', '/api/v1/evaluators', {
        token: t.fullKey,
        body: { name: 'exact', type: 'exact_match', config: { expected_path: '$.expected' } },
      })
    ).body.data.id;
    judge = (
      await api(app, 'POST', '/api/v1/evaluators', {
        token: t.fullKey,
        body: {
          name: 'judge',
          type: 'llm_judge',
          config: {
            provider: 'openai',
            model: 'gpt-4o-mini',
            template: 'A: {{output}}',
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

  it('a prompt subject: the item run in flight is dropped', async () => {
    upstream.requests.length = 0;
    const subject = {
      kind: 'prompt',
      template: [{ role: 'user', content: 'Answer: {{question}}' }],
      provider: 'openai',
      model: 'gpt-4o-mini',
    };
    const id = (
      await api(app, 'POST', '/api/v1/experiments', {
        ...ed(),
        body: { name: 'p', dataset_id: dataset, subject, evaluator_ids: [exact], concurrency: 1 },
      })
    ).body.data.id as string;
    await waitUntil(async () => upstream.requests.length >= 1, 15_000, 'the first model call');
    const c = (await api(app, 'POST', `/api/v1/experiments/${id}/cancel`, ed())).body.data;
    expect(c).toMatchObject({ status: 'cancelled', counts: { pending: 3, completed: 0, error: 0 }, scores: [] });
    await frozen(id, c);
    expect(upstream.requests).toHaveLength(1);
  }, 30_000);

  it('an external subject: outputs whose scoring is in flight are refused, not written', async () => {
    const id = (
      await api(app, 'POST', '/api/v1/experiments', {
        ...ed(),
        body: { name: 'ext', dataset_id: dataset, subject: { kind: 'external' }, evaluator_ids: [judge] },
      })
    ).body.data.id as string;
    upstream.requests.length = 0;
    const posting = api(app, 'POST', `/api/v1/experiments/${id}/outputs`, {
      ...ed(),
      body: { outputs: [{ item_id: 'i0', output: 'answer' }] },
    });
    await waitUntil(async () => upstream.requests.length >= 1, 15_000, 'the judge call');
    const c = (await api(app, 'POST', `/api/v1/experiments/${id}/cancel`, ed())).body.data;
    expect(c).toMatchObject({ status: 'cancelled', counts: { pending: 3, completed: 0 } });
    expect(await posting).toMatchObject({ status: 409, body: { code: 'experiment_closed' } });
    await frozen(id, c);
  }, 30_000);
});
