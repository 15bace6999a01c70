import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { reviewerClient, seedRequests, seedScoreConfigs, type Role } from './setup';

/** Review campaigns and the annotation queue: reservations, leases, answers, agreement. */
describe('human evals and the annotation queue', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let quality: string;
  let rating: string;
  let campaign: string;
  const reqs: string[] = [];
  const reviewer = reviewerClient(() => ({ app, t, quality, rating }));
  const { as, answer } = reviewer;
  const next = (role: Role, id = campaign) => reviewer.next(role, id);

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    ({ quality, rating } = await seedScoreConfigs(app, t));
    reqs.push(...(await seedRequests(app, t)));
    const adminId = (await app.database.db('users').where({ email: t.admin.email }).first('id')).id;
    campaign = (
      await api(app, 'POST', '/api/v1/human-evals', {
        ...as('admin'),
        body: {
          name: 'review',
          instructions: 'Judge the answers',
          score_config_ids: [quality, rating],
          reviewers: [{ email: t.editor.email.toUpperCase() }, { user_id: adminId }],
          reviewers_per_item: 2,
          lease_seconds: 60,
          targets: { items: reqs.map((request_id) => ({ request_id })) },
        },
      })
    ).body.data.id;
  });
  afterAll(() => app?.stop());

  it(
    'two reviewers at once never hold the same slot; a ' + 'reviewer gets each item once; non-reviewers get nothing',
    async () => {
      const [a, e] = await Promise.all([next('admin'), next('editor')]);
      expect(a.target_key).toBe(`request:${reqs[0]}`);
      expect(e.target_key).toBe(`request:${reqs[0]}`);
      expect(a.content).toEqual({ input: 'q0', output: 'a0' });
      expect(a.score_configs.map((c: { name: string }) => c.name)).toEqual(['quality', 'rating']);
      const slots = await app.database.db('annotation_slots').where({ human_eval_id: campaign, status: 'reserved' });
      expect(slots).toHaveLength(2);
      expect(new Set(slots.map((s) => s.slot)).size).toBe(2);
      // Asking again hands back the live reservation.
      expect((await next('admin')).target_key).toBe(a.target_key);
      expect(
        (await api(app, 'GET', `/api/v1/annotation/queue?human_eval_id=${campaign}`, as('viewer'))).body.code,
      ).toBe('not_a_reviewer');
      expect((await api(app, 'GET', '/api/v1/annotation/queue', as('viewer'))).body.data).toBeNull();
    },
  );

  it('answers are validated and recorded as annotation scores; the next item comes back', async () => {
    const a = await next('admin');
    expect((await answer('admin', a, 'good', 9)).body.code).toBe('invalid_score_value');
    expect(
      (
        await api(app, 'POST', '/api/v1/annotation/queue', {
          ...as('admin'),
          body: {
            human_eval_id: campaign,
            target_key: a.target_key,
            scores: [{ config_id: quality, string_value: 'good' }],
          },
        })
      ).body.code,
    ).toBe('scores_incomplete');
    // Items 1–3: agreement on 0, 1 and 2; on item 3 the reviewers disagree.
    const labels = { admin: ['good', 'good', 'bad', 'good'], editor: ['good', 'good', 'bad', 'bad'] };
    for (const role of ['admin', 'editor'] as const) {
      let item = await next(role);
      for (let i = 0; i < 4; i++) {
        expect(item.target_key).toBe(`request:${reqs[i]}`);
        const r = await answer(role, item, labels[role][i]!, 3 + (i % 2));
        expect(r.status).toBe(200);
        item = r.body.data;
      }
      expect(item).toBeNull();
    }
    const scores = await app.database.db('scores').where({ project_id: t.projectId, source: 'annotation' });
    expect(scores).toHaveLength(16);
    expect(scores.find((s) => s.name === 'quality' && s.string_value === 'bad')).toMatchObject({
      value: 0,
      config_id: quality,
      target_type: 'request',
    });
    const h = (await api(app, 'GET', `/api/v1/human-evals/${campaign}`, as('viewer'))).body.data;
    expect(h.progress).toMatchObject({ slots: 8, done: 8, reserved: 0, open: 0 });
    expect(h.progress.by_reviewer.map((r: { done: number }) => r.done)).toEqual([4, 4]);
  });

  it("agreement: Fleiss' kappa by hand, and the judge's agreement with the reviewers' majority", async () => {
    // A judge scored items 0–2 the way the reviewers did.
    await app.database.db('scores').insert(
      ['good', 'good', 'bad'].map((label, i) => ({
        id: randomUUID(),
        org_id: t.orgId,
        project_id: t.projectId,
        name: 'quality',
        data_type: 'categorical',
        value: label === 'good' ? 1 : 0,
        string_value: label,
        source: 'eval',
        target_type: 'request',
        request_id: reqs[i],
      })),
    );
    const ag = (await api(app, 'GET', `/api/v1/human-evals/${campaign}/agreement`, as('viewer'))).body.data.configs;
    const q = ag.find((c: { name: string }) => c.name === 'quality');
    // counts [2,0],[2,0],[0,2],[1,1]: P̄ = 0.75, p = (5/8, 3/8), Pe = 34/64 → κ = (0.75 − 0.53125) / 0.46875.
    expect(q).toMatchObject({
      items_rated: 4,
      ratings: 8,
      judge: { evaluator_scores: 3, percent_agreement: 1, kappa: 1 },
    });
    expect(q.fleiss_kappa).toBeCloseTo(0.21875 / 0.46875, 6);
    const r = ag.find((c: { name: string }) => c.name === 'rating');
    expect(r).toMatchObject({ data_type: 'numeric', fleiss_kappa: null, krippendorff_alpha: 1, judge: null });
  });

  describe('role matrix', () => {
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /human-evals', method: 'GET', path: () => '/api/v1/human-evals' },
        {
          name: 'POST /human-evals',
          method: 'POST',
          path: () => '/api/v1/human-evals',
          write: true,
          ok: 201,
          get body() {
            return { name: 'm', score_config_ids: [quality], targets: { items: [{ request_id: reqs[0] }] } };
          },
        },
        { name: 'GET /human-evals/:id', method: 'GET', path: () => `/api/v1/human-evals/${campaign}` },
        {
          name: 'PATCH /human-evals/:id',
          method: 'PATCH',
          path: () => `/api/v1/human-evals/${campaign}`,
          write: true,
          body: { instructions: 'x' },
        },
        // The campaign has this target already: nothing changes, the answer is the campaign.
        {
          name: 'POST /human-evals/:id/items',
          method: 'POST',
          write: true,
          path: () => `/api/v1/human-evals/${campaign}/items`,
          get body() {
            return { targets: { items: [{ request_id: reqs[0] }] } };
          },
        },
        {
          name: 'GET /human-evals/:id/agreement',
          method: 'GET',
          path: () => `/api/v1/human-evals/${campaign}/agreement`,
        },
        // The viewer is not among this campaign's reviewers: 403.
        {
          name: 'GET /annotation/queue',
          method: 'GET',
          path: () => `/api/v1/annotation/queue?human_eval_id=${campaign}`,
          write: true,
        },
        // Every item of the campaign is answered: reviewers hold no reservation (409); the viewer reviews nothing here
        // (403).
        ...(['', '/skip', '/release'] as const).map((suffix) => ({
          name: `POST /annotation/queue${suffix}`,
          method: 'POST',
          path: () => `/api/v1/annotation/queue${suffix}`,
          write: true,
          ok: 409,
          get body() {
            return suffix
              ? { human_eval_id: campaign, target_key: `request:${reqs[0]}` }
              : {
                  human_eval_id: campaign,
                  target_key: `request:${reqs[0]}`,
                  scores: [
                    { config_id: quality, string_value: 'good' },
                    { config_id: rating, value: 3 },
                  ],
                };
          },
        })),
      ],
    );
    it("another organization's campaign is a 404 for its reads and the queue", async () => {
      const o = { token: other.admin.token, orgId: other.orgId };
      expect((await api(app, 'GET', `/api/v1/human-evals/${campaign}`, o)).status).toBe(404);
      expect((await api(app, 'GET', `/api/v1/annotation/queue?human_eval_id=${campaign}`, o)).status).toBe(404);
    });
  });
});
