import { randomBytes, randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createLogger } from '../../src/logger';
import { createMetrics } from '../../src/metrics/metrics';
import { suiteBundle } from '../helpers/stubbed-workflow';
import { systemCheckWorkflow } from '../../workflows';
import { startTestApp, type TestApp } from '../helpers/app';
import { freshDatabase, type TestDatabase } from '../helpers/db';

describe('api → Temporal → worker → activity → PostgreSQL on the dev server', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
  });
  afterAll(() => app.stop());

  it('runs the system check workflow through the real worker', async () => {
    const { client } = app.runtime.ctx.temporal;
    const workflowId = `system-check-${randomUUID()}`;
    const result = await client.workflow.execute(systemCheckWorkflow, {
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      workflowId,
    });
    expect(result.workflowId).toBe(workflowId);
    expect(result.database).toBe(app.database.name);
    expect(Date.parse(result.now)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  let database: TestDatabase;
  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    database = await freshDatabase();
  });
  afterAll(async () => {
    await env?.teardown();
    await database?.drop();
  });

  it('runs the same bundle and activities, and skips durable timers', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'ts-loop',
      workflowBundle: await suiteBundle(),
      activities: createActivities({
        db: database.db,
        config: {} as never,
        logger: createLogger('silent'),
        http: {} as never,
        keyring: { currentId: 'k', keys: new Map([['k', randomBytes(32)]]) },
        metrics: createMetrics(),
        exportStore: {} as never,
        endpoints: {} as never,
      }),
    });
    const wallStart = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute(systemCheckWorkflow, {
        taskQueue: 'ts-loop',
        workflowId: randomUUID(),
        args: [{ sleepMs: 6 * 3600_000 }],
      }),
    );
    expect(result.database).toBe(database.name);
    // Six hours of workflow time passed; the database clock (wall time) shows far less.
    expect(Date.parse(result.now) - wallStart).toBeLessThan(60_000);
  });
});
