import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeReadMatrix } from '../../helpers/read-matrix';
import { requestRow, writeRows } from '../analytics/seed';
import { seedEvaluators } from './setup';

/**
 * Eval runs' input checks and role matrix: no worker runs here, a started run stays pending (the
 * matrix reads and cancels it all the same).
 */
describe('eval runs', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  const evaluators: Record<string, string> = {};
  const requests = { mine: '', theirs: '' };
  const hour = 3_600_000;
  const range = { from: new Date(Date.now() - 2 * hour).toISOString(), to: new Date(Date.now() + hour).toISOString() };

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    Object.assign(evaluators, await seedEvaluators(app, t));
    const [mine, theirs] = [t, other].map((s) => requestRow({ orgId: s.orgId, projectId: s.projectId }));
    await writeRows(app.database.db, [mine!, theirs!]);
    Object.assign(requests, { mine: mine!.id, theirs: theirs!.id });
  });
  afterAll(() => app?.stop());

  it('refuses bad input with 4xx', async () => {
    const post = (body: unknown) => api(app, 'POST', '/api/v1/eval-runs', { token: t.fullKey, body });
    expect((await post({ evaluator_ids: [], target: { kind: 'requests', ...range } })).status).toBe(400);
    expect((await post({ evaluator_ids: [evaluators.judge], target: { kind: 'spans', ...range } })).status).toBe(400);
    expect(
      (await post({ evaluator_ids: ['00000000-0000-4000-8000-000000000000'], target: { kind: 'requests', ...range } }))
        .status,
    ).toBe(404);
    const ev = (body: unknown) => api(app, 'POST', '/api/v1/evaluators', { token: t.fullKey, body });
    expect((await ev({ name: 'r', type: 'regex', config: { pattern: '(' } })).body.code).toBe('invalid_evaluator');
    expect((await ev({ name: 'mentions-answer', type: 'contains', config: { value: 'x' } })).body.code).toBe(
      'evaluator_exists',
    );
    expect(
      (
        await ev({
          name: 'j',
          type: 'llm_judge',
          config: { provider: 'gemini', model: 'm', template: 't', output: { type: 'boolean' } },
        })
      ).status,
    ).toBe(400);
  });

  describe('role matrix', () => {
    // Its own run to read and cancel, so the matrix runs without the tests above.
    let fixture: string;
    beforeAll(async () => {
      const body = { evaluator_ids: [evaluators.contains], target: { kind: 'traces', ...range, limit: 1 } };
      fixture = (await api(app, 'POST', '/api/v1/eval-runs', { token: t.fullKey, body })).body.data.id;
    });
    const anyRun = () => fixture;
    const foreignEvaluator = async () =>
      (
        await api(app, 'POST', '/api/v1/evaluators', {
          token: other.fullKey,
          body: { name: `x-${Math.random()}`, type: 'contains', config: { value: 'x' } },
        })
      ).body.data.id as string;
    describeReadMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /api/v1/evaluators', method: 'GET', path: () => '/api/v1/evaluators' },
        {
          name: 'POST /api/v1/evaluators',
          method: 'POST',
          path: () => '/api/v1/evaluators',
          write: true,
          ok: 201,
          get body() {
            return { name: `m-${Math.random()}`, type: 'latency', config: { max_ms: 100 } };
          },
        },
        {
          name: 'GET /api/v1/evaluators/:id',
          method: 'GET',
          path: () => `/api/v1/evaluators/${evaluators.contains}`,
          foreignPath: async () => `/api/v1/evaluators/${await foreignEvaluator()}`,
        },
        {
          name: 'PATCH /api/v1/evaluators/:id',
          method: 'PATCH',
          path: () => `/api/v1/evaluators/${evaluators.contains}`,
          write: true,
          body: { description: 'd' },
          foreignPath: async () => `/api/v1/evaluators/${await foreignEvaluator()}`,
        },
        {
          name: 'DELETE /api/v1/evaluators/:id',
          method: 'DELETE',
          write: true,
          path: async () => {
            const body = { name: `d-${Math.random()}`, type: 'cost', config: { max_usd: 1 } };
            const created = await api(app, 'POST', '/api/v1/evaluators', { token: t.fullKey, body });
            return `/api/v1/evaluators/${created.body.data.id}`;
          },
          foreignPath: async () => `/api/v1/evaluators/${await foreignEvaluator()}`,
        },
        {
          name: 'POST /api/v1/evaluators/preview',
          method: 'POST',
          path: () => '/api/v1/evaluators/preview',
          write: true,
          get body() {
            return { type: 'latency', config: { max_ms: 1000 }, target: { request_id: requests.mine } };
          },
          foreignBody: () => ({ type: 'latency', config: { max_ms: 1000 }, target: { request_id: requests.theirs } }),
        },
        { name: 'GET /api/v1/eval-runs', method: 'GET', path: () => '/api/v1/eval-runs' },
        {
          name: 'POST /api/v1/eval-runs',
          method: 'POST',
          path: () => '/api/v1/eval-runs',
          write: true,
          ok: 201,
          get body() {
            return { evaluator_ids: [evaluators.contains], target: { kind: 'traces', ...range, limit: 1 } };
          },
        },
        { name: 'GET /api/v1/eval-runs/:id', method: 'GET', path: async () => `/api/v1/eval-runs/${await anyRun()}` },
        {
          name: 'GET /api/v1/eval-runs/:id/results',
          method: 'GET',
          path: async () => `/api/v1/eval-runs/${await anyRun()}/results`,
        },
        {
          name: 'POST /api/v1/eval-runs/:id/cancel',
          method: 'POST',
          write: true,
          path: async () => `/api/v1/eval-runs/${await anyRun()}/cancel`,
        },
      ],
    );
  });
});
