import { rm } from 'node:fs/promises';
import { dropDatabase } from '../../src/db/admin';
import type { DevServer } from '../../src/temporal/dev-server';
import { TEST_PG_URL } from '../helpers/env';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  await (g.__temporalDevServer as DevServer | undefined)?.stop();
  const template = g.__testDbTemplate as string | undefined;
  if (template) await dropDatabase(TEST_PG_URL, template);
  if (process.env.TEMPORAL_WORKFLOW_BUNDLE) await rm(process.env.TEMPORAL_WORKFLOW_BUNDLE, { force: true });
}
