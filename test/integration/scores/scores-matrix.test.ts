import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app';
import { api, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { describeReadMatrix } from '../../helpers/read-matrix';
import { seedFixture, seedForeign } from './setup';

/** Score and score config routes by role, key and organization (the rest is in scores.test.ts). */
describe('scores and score configs', () => {
  let app: TestApp;
  let other: SeededTenant;
  let foreignRequest: string;
  let t: SeededTenant;
  let requestId: string;
  const admin = () => ({ token: t.admin.token, orgId: t.orgId });
  const config = async (body: Record<string, unknown>) =>
    api(app, 'POST', '/api/v1/score-configs', { ...admin(), body });
  const score = async (body: Record<string, unknown>, token = t.fullKey) =>
    api(app, 'POST', '/api/v1/scores', { token, body });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    ({ other, foreignRequest } = await seedForeign(app));
  });
  afterAll(() => app?.stop());

  describe('role matrix', () => {
    beforeAll(async () => ({ t, requestId } = await seedFixture(app)));
    const anyScore = async () =>
      ((await app.database.db('scores').where({ project_id: t.projectId }).first('id'))?.id as string | undefined) ??
      ((await score({ name: 'any', value: 1, request_id: requestId })).body.data.id as string);
    const foreignScore = async () => {
      const r = await score({ name: 'theirs', value: 1, request_id: foreignRequest }, other.fullKey);
      return r.body.data.id as string;
    };
    const anyConfig = async () =>
      ((await app.database.db('score_configs').where({ project_id: t.projectId }).first('id'))?.id as
        string | undefined) ??
      ((await config({ name: `any-${randomUUID()}`, data_type: 'boolean' })).body.data.id as string);
    describeReadMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /api/v1/scores', method: 'GET', path: () => '/api/v1/scores' },
        // The body's request id is read when the case runs (after beforeAll).
        {
          name: 'POST /api/v1/scores',
          method: 'POST',
          path: () => '/api/v1/scores',
          write: true,
          ok: 201,
          body: {
            name: 'matrix',
            value: 1,
            get request_id() {
              return requestId;
            },
          },
        },
        {
          name: 'GET /api/v1/scores/:id',
          method: 'GET',
          path: async () => `/api/v1/scores/${await anyScore()}`,
          foreignPath: async () => `/api/v1/scores/${await foreignScore()}`,
        },
        {
          name: 'DELETE /api/v1/scores/:id',
          method: 'DELETE',
          write: true,
          path: async () =>
            `/api/v1/scores/${(await score({ name: 'gone', value: 1, request_id: requestId })).body.data.id}`,
          foreignPath: async () => `/api/v1/scores/${await foreignScore()}`,
        },
      ],
    );
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /score-configs', method: 'GET', path: () => '/api/v1/score-configs' },
        {
          name: 'POST /score-configs',
          method: 'POST',
          path: () => '/api/v1/score-configs',
          write: true,
          ok: 201,
          get body() {
            return { name: `m-${randomUUID()}`, data_type: 'boolean' };
          },
        },
        {
          name: 'GET /score-configs/:id',
          method: 'GET',
          path: async () => `/api/v1/score-configs/${await anyConfig()}`,
        },
        {
          name: 'PATCH /score-configs/:id',
          method: 'PATCH',
          path: async () => `/api/v1/score-configs/${await anyConfig()}`,
          write: true,
          body: { description: 'd' },
        },
        {
          name: 'DELETE /score-configs/:id',
          method: 'DELETE',
          write: true,
          path: async () =>
            `/api/v1/score-configs/${(await config({ name: `d-${randomUUID()}`, data_type: 'boolean' })).body.data.id}`,
        },
      ],
    );
    it("another organization's config is a 404", async () => {
      const id = (
        await api(app, 'POST', '/api/v1/score-configs', {
          token: other.admin.token,
          orgId: other.orgId,
          body: { name: 'x', data_type: 'boolean' },
        })
      ).body.data.id;
      for (const m of ['GET', 'PATCH', 'DELETE'])
        expect(
          (
            await api(app, m, `/api/v1/score-configs/${id}`, {
              ...admin(),
              body: m === 'PATCH' ? { description: 'x' } : undefined,
            })
          ).status,
        ).toBe(404);
    });
  });
});
