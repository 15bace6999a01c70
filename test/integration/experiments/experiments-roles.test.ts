import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { describeJwtMatrix } from '../../helpers/jwt-matrix';
import { seedDataset } from './setup';

/** The experiments API's role matrix, on experiments with an external subject (no worker needed). */
describe('experiments', () => {
  let app: TestApp;
  let t: SeededTenant;
  let other: SeededTenant;
  let dataset: string;
  const ed = () => ({ token: t.editor.token, orgId: t.orgId });

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    dataset = await seedDataset(app, t);
  });
  afterAll(() => app?.stop());

  describe('role matrix', () => {
    // Its own experiment to read and cancel, so the matrix runs without the tests above.
    let fixture: string;
    beforeAll(async () => {
      const body = { name: 'matrix', dataset_id: dataset, subject: { kind: 'external' } };
      fixture = (await api(app, 'POST', '/api/v1/experiments', { ...ed(), body })).body.data.id;
    });
    const anyExp = () => fixture;
    describeJwtMatrix(
      () => ({ app, t, other }),
      [
        { name: 'GET /experiments', method: 'GET', path: () => '/api/v1/experiments' },
        {
          name: 'POST /experiments',
          method: 'POST',
          path: () => '/api/v1/experiments',
          write: true,
          ok: 201,
          get body() {
            return { name: 'm', dataset_id: dataset, subject: { kind: 'external' } };
          },
        },
        { name: 'GET /experiments/:id', method: 'GET', path: async () => `/api/v1/experiments/${await anyExp()}` },
        {
          name: 'GET /experiments/:id/items',
          method: 'GET',
          path: async () => `/api/v1/experiments/${await anyExp()}/items`,
        },
        {
          name: 'GET /experiments/compare',
          method: 'GET',
          path: async () => `/api/v1/experiments/compare?ids=${await anyExp()},${await anyExp()}`,
        },
        {
          name: 'POST /experiments/:id/cancel',
          method: 'POST',
          path: async () => `/api/v1/experiments/${await anyExp()}/cancel`,
          write: true,
        },
        {
          name: 'POST /experiments/:id/outputs',
          method: 'POST',
          write: true,
          body: { outputs: [{ item_id: 'i000', output: 'x' }] },
          path: async () => {
            const body = { name: 'ext', dataset_id: dataset, subject: { kind: 'external' } };
            const created = await api(app, 'POST', '/api/v1/experiments', { ...ed(), body });
            return `/api/v1/experiments/${created.body.data.id}/outputs`;
          },
        },
      ],
    );
  });
});
