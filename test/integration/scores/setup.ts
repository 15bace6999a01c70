import { randomUUID } from 'node:crypto';
import type { TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { requestRow, writeRows } from '../analytics/seed';

/** One tenant's scoring targets: a request in session `sess-1`, a trace with span `sp-1`. */
export interface Fixture {
  t: SeededTenant;
  requestId: string;
  traceId: string;
}

export const seedFixture = async (app: TestApp): Promise<Fixture> => {
  const tenant = await seedTenant(app);
  const row = requestRow({ orgId: tenant.orgId, projectId: tenant.projectId }, { session_id: 'sess-1' });
  await writeRows(app.database.db, [row]);
  const trace = `tr-${randomUUID()}`;
  const now = new Date().toISOString();
  expect(
    (
      await api(app, 'POST', '/ingest/traces', {
        token: tenant.fullKey,
        body: { id: trace, name: 'agent', start_time: now },
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await api(app, 'POST', '/ingest/spans', {
        token: tenant.fullKey,
        body: { id: 'sp-1', trace_id: trace, name: 'llm', start_time: now },
      })
    ).status,
  ).toBe(201);
  return { t: tenant, requestId: row.id, traceId: trace };
};

/** The foreign tenant (nothing writes to it) and a request of its own. */
export const seedForeign = async (app: TestApp): Promise<{ other: SeededTenant; foreignRequest: string }> => {
  const other = await seedTenant(app);
  const theirs = requestRow({ orgId: other.orgId, projectId: other.projectId });
  await writeRows(app.database.db, [theirs]);
  return { other, foreignRequest: theirs.id };
};
