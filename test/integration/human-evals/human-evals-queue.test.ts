import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { reviewerClient, seedRequests, seedScoreConfigs } from './setup';

/** Campaigns of their own through the annotation queue: lapsed reservations, skip and release, added targets. */
describe('human evals and the annotation queue', () => {
  let app: TestApp;
  let t: SeededTenant;
  let quality: string;
  let rating: string;
  const reqs: string[] = [];
  const { as, next, answer } = reviewerClient(() => ({ app, t, quality, rating }));

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
    ({ quality, rating } = await seedScoreConfigs(app, t));
    reqs.push(...(await seedRequests(app, t)));
  });
  afterAll(() => app?.stop());

  it('a lapsed reservation goes back to the pool; its holder can no longer answer', async () => {
    const one = (
      await api(app, 'POST', '/api/v1/human-evals', {
        ...as('admin'),
        body: {
          name: 'one',
          score_config_ids: [quality, rating],
          targets: { items: [{ request_id: reqs[0] }] },
          lease_seconds: 30,
        },
      })
    ).body.data.id;
    const e = await next('editor', one);
    expect(e).not.toBeNull();
    expect(await next('admin', one)).toBeNull();
    await app.database
      .db('annotation_slots')
      .where({ human_eval_id: one })
      .update({ reserved_until: app.database.db.raw(`now() - interval '1 second'`) });
    const a = await next('admin', one);
    expect(a.target_key).toBe(e.target_key);
    expect((await answer('editor', e, 'good')).body.code).toBe('reservation_lost');
    expect((await answer('admin', a, 'good')).status).toBe(200);
  });

  it('skip hides an item from the reviewer; release gives it back', async () => {
    const two = (
      await api(app, 'POST', '/api/v1/human-evals', {
        ...as('admin'),
        body: {
          name: 'two',
          score_config_ids: [quality, rating],
          targets: { items: [{ request_id: reqs[0] }, { request_id: reqs[1] }] },
        },
      })
    ).body.data.id;
    const first = await next('viewer', two);
    const afterRelease = (
      await api(app, 'POST', '/api/v1/annotation/queue/release', {
        ...as('viewer'),
        body: { human_eval_id: two, target_key: first.target_key },
      })
    ).body.data;
    expect(afterRelease.target_key).toBe(first.target_key);
    const afterSkip = (
      await api(app, 'POST', '/api/v1/annotation/queue/skip', {
        ...as('viewer'),
        body: { human_eval_id: two, target_key: first.target_key },
      })
    ).body.data;
    expect(afterSkip.target_key).toBe(`request:${reqs[1]}`);
    expect((await next('editor', two)).target_key).toBe(first.target_key);
  });

  it('adds targets to a campaign: new ones queue after the others, ones it has keep their answers', async () => {
    const body = (items: string[]) => ({ targets: { items: items.map((request_id) => ({ request_id })) } });
    const campaignBody = {
      name: 'grow',
      score_config_ids: [quality, rating],
      reviewers_per_item: 2,
      ...body([reqs[0]!]),
    };
    const grow = (await api(app, 'POST', '/api/v1/human-evals', { ...as('admin'), body: campaignBody })).body.data.id;
    const first = await next('editor', grow);
    expect((await answer('editor', first, 'good')).status).toBe(200);
    const add = (role: 'admin' | 'editor', b: unknown) =>
      api(app, 'POST', `/api/v1/human-evals/${grow}/items`, { ...as(role), body: b });
    const r = await add('editor', body([reqs[2]!, reqs[0]!, reqs[1]!, reqs[2]!]));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ items: 3, progress: { slots: 6, done: 1 } });
    const db = app.database.db;
    const items = await db('human_eval_items').where({ human_eval_id: grow }).orderBy('position').pluck('target_key');
    expect(items).toEqual([reqs[0], reqs[2], reqs[1]].map((id) => `request:${id}`));
    expect((await next('editor', grow)).target_key).toBe(`request:${reqs[2]}`); // in the order they were added
    const from = new Date(Date.now() - 60_000).toISOString();
    const none = await add('admin', { targets: { source: { kind: 'traces', from, to: from, limit: 5 } } });
    expect(none.body.code).toBe('no_targets');
    const audit = await db('audit_logs').where({ resource_id: grow, action: 'human_eval.items_added' }).first();
    expect(audit?.after).toEqual({ added: 2, already_there: 1 });
  });
});
