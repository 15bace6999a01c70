import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { requestRow, writeRows } from '../analytics/seed';
import { waitUntil } from '../webhooks/fixtures';

/** Prompt experiments: a grid of variants over a dataset or a production sample, with a winner. */
describe('prompt experiments', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let other: SeededTenant;
  let dataset: string;
  let exact: string;
  let gridId: string;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    // gpt-4o knows every answer; gpt-4o-mini only the even ones.
    upstream.handle((req, res) => {
      const q = /q-(\d+)/.exec(JSON.stringify(req.json?.messages ?? []))?.[1] ?? '0';
      const right = req.json?.model === 'gpt-4o' || Number(q) % 2 === 0;
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: req.json?.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: right ? `answer q-${q}` : 'hmm' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
      });
    });
    app = await startTestApp({ role: 'all', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-grid-0123456789' },
    });
    await api(app, 'POST', '/api/v1/prompts', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, name: 'qa', version: { template: 'Answer {{question}}', model: 'gpt-4o-mini' } },
    });
    dataset = (await api(app, 'POST', '/api/v1/datasets', { ...ed(), body: { name: 'grid' } })).body.data.id;
    await api(app, 'POST', `/api/v1/datasets/${dataset}/items`, {
      ...ed(),
      body: {
        items: Array.from({ length: 10 }, (_, i) => ({
          id: `g${i}`,
          input: { question: `q-${i}` },
          expected_output: `answer q-${i}`,
        })),
      },
    });
    exact = (
      await api(app, 'POST', '/api/v1/evaluators', {
        token: t.fullKey,
        body: { name: 'exact', type: 'exact_match', config: { expected_path: '$.expected' } },
      })
    ).body.data.id;
  });
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
  });

  it('runs the variants × items grid and names the winner per score', async () => {
    const r = await api(app, 'POST', '/api/v1/prompt-experiments', {
      ...ed(),
      body: {
        name: 'which model',
        evaluator_ids: [exact],
        items: { dataset_id: dataset },
        variants: [
          { label: 'mini', subject: { kind: 'prompt', prompt: 'qa@1', provider: 'openai' } },
          { label: '4o', subject: { kind: 'prompt', prompt: 'qa@1', provider: 'openai', model: 'gpt-4o' } },
          {
            label: 'inline',
            subject: {
              kind: 'prompt',
              template: [{ role: 'user', content: 'Reply to {{question}}' }],
              provider: 'openai',
              model: 'gpt-4o-mini',
            },
          },
        ],
      },
    });
    expect(r.status).toBe(201);
    gridId = r.body.data.id;
    const g = await waitUntil(
      async () => {
        const x = (await api(app, 'GET', `/api/v1/prompt-experiments/${gridId}`, ed())).body.data;
        return x.status === 'completed' ? x : undefined;
      },
      60_000,
      'the grid',
    );
    expect(g.variants.map((v: { label: string; scores: { mean: number }[] }) => [v.label, v.scores[0]!.mean])).toEqual([
      ['mini', 0.5],
      ['4o', 1],
      ['inline', 0.5],
    ]);
    expect(g.winners).toEqual([{ name: 'exact', variant: 1, label: '4o', mean: 1 }]);
    expect(g.rows).toHaveLength(10);
    expect(
      g.rows
        .find((row: { item_id: string }) => row.item_id === 'g1')
        .cells.map((c: { outputs: string[]; scores: { exact: number } }) => [c.outputs[0], c.scores.exact]),
    ).toEqual([
      ['hmm', 0],
      ['answer q-1', 1],
      ['hmm', 0],
    ]);
    expect(upstream.requests.some((q) => JSON.stringify(q.json!.messages).includes('Reply to q-3'))).toBe(true);
  }, 90_000);

  it('takes its items from a production sample, kept as a dataset', async () => {
    await writeRows(
      app.database.db,
      Array.from({ length: 4 }, (_, i) =>
        requestRow(
          { orgId: t.orgId, projectId: t.projectId },
          {
            log_mode: 'full',
            request_body: JSON.stringify({ messages: [{ role: 'user', content: `q-${i * 2}` }] }),
            response_body: JSON.stringify({ choices: [{ message: { content: `answer q-${i * 2}` } }] }),
          },
        ),
      ),
    );
    const range = {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    const r = await api(app, 'POST', '/api/v1/prompt-experiments', {
      ...ed(),
      body: {
        name: 'from prod',
        items: { production: { kind: 'requests', ...range, limit: 4, filter: { model: 'gpt-4o-mini' } } },
        variants: [{ subject: { kind: 'prompt', template: 'Answer {{input}}', provider: 'openai', model: 'gpt-4o' } }],
      },
    });
    expect(r.status).toBe(201);
    const g = await waitUntil(
      async () => {
        const x = (await api(app, 'GET', `/api/v1/prompt-experiments/${r.body.data.id}`, ed())).body.data;
        return x.status === 'completed' ? x : undefined;
      },
      60_000,
      'the production grid',
    );
    expect(g.rows.length).toBeGreaterThanOrEqual(4);
    const ds = (await api(app, 'GET', `/api/v1/datasets/${g.dataset_id}`, ed())).body.data;
    expect(ds.name).toMatch(/^from prod · sample /);
  }, 90_000);

  describe('role matrix', () => {
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /prompt-experiments', method: 'GET', path: () => '/api/v1/prompt-experiments' },
        { name: 'GET /prompt-experiments/:id', method: 'GET', path: () => `/api/v1/prompt-experiments/${gridId}` },
        {
          name: 'POST /prompt-experiments/:id/cancel',
          method: 'POST',
          path: () => `/api/v1/prompt-experiments/${gridId}/cancel`,
          write: true,
        },
        {
          name: 'POST /prompt-experiments',
          method: 'POST',
          path: () => '/api/v1/prompt-experiments',
          write: true,
          ok: 201,
          get body() {
            return {
              name: 'm',
              items: { dataset_id: dataset },
              variants: [{ subject: { kind: 'prompt', prompt: 'qa@1', provider: 'openai' } }],
            };
          },
        },
      ],
    );
  });
});
