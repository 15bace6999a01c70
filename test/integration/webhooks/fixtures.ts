import { exportStoreFromConfig } from '../../../src/exports/storage';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import { loadConfig, type Config } from '../../../src/config';
import type { Db } from '../../../src/db/knex';
import { buildBody } from '../../../src/webhooks/payload';
import { deliveryWorkflowId } from '../../../src/webhooks/policy';
import type { ActivityDeps } from '../../../activities';
import { resolveMasterKey } from '../../../src/auth/crypto';
import { createLogger } from '../../../src/logger';
import { createMetrics } from '../../../src/metrics/metrics';
import { endpointGuardFromConfig } from '../../../src/webhooks/endpoint-guard';
import { safeHttpClientFromConfig } from '../../../src/webhooks/safe-http';
import { encryptWebhookSecret, generateWebhookSecret, secretHint } from '../../../src/webhooks/secrets';
import { testCertificates } from '../../helpers/https-receiver';

/** Database-level fixtures for workflow and dispatcher tests that do not go through the REST API. */

export async function webhookTestConfig(extra: Record<string, string> = {}): Promise<Config> {
  const { caFile } = await testCertificates();
  return loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    MASTER_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32',
    WEBHOOK_CA_FILE: caFile,
    ...extra,
  });
}

/** The activities' dependencies as the runtime builds them (close the HTTP client when done). */
export function activityDepsFor(db: Db, config: Config): ActivityDeps {
  return {
    db,
    config,
    http: safeHttpClientFromConfig(config),
    keyring: resolveMasterKey(config),
    logger: createLogger('silent'),
    metrics: createMetrics(),
    exportStore: exportStoreFromConfig(config),
    endpoints: endpointGuardFromConfig(config),
  };
}

export async function seedOrg(db: Db): Promise<string> {
  const [user] = await db('users')
    .insert({ sub: `sub-${randomUUID()}` })
    .returning('id');
  const [org] = await db('organizations').insert({ name: 'Acme', owner_user_id: user.id }).returning('id');
  return org.id as string;
}

export async function seedWebhook(
  db: Db,
  config: Config,
  orgId: string,
  url: string,
  opts: { events?: string[]; isActive?: boolean } = {},
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = generateWebhookSecret();
  const enc = encryptWebhookSecret(resolveMasterKey(config), id, secret);
  await db('webhooks').insert({
    id,
    org_id: orgId,
    name: 'hook',
    url,
    events: opts.events ?? ['request.created', 'trace.completed', 'alert.triggered'],
    is_active: opts.isActive ?? true,
    secret_ciphertext: enc.ciphertext,
    master_key_id: enc.keyId,
    secret_hint: secretHint(secret),
  });
  return { id, secret };
}

export async function seedDelivery(
  db: Db,
  webhookId: string,
  orgId: string,
  eventType = 'trace.completed',
): Promise<{ id: string; body: string }> {
  const id = randomUUID();
  const body = buildBody(eventType, webhookId, new Date(), {
    trace: { id: 't-1', status: 'completed', ended_at: new Date().toISOString(), duration_ms: 12 },
  });
  await db('webhook_deliveries').insert({
    id,
    webhook_id: webhookId,
    org_id: orgId,
    event_type: eventType,
    body,
    workflow_id: deliveryWorkflowId(id),
  });
  return { id, body };
}

export async function waitUntil<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Temporal's default runtime logs every failed activity at warn; these tests fail activities on purpose. */
export function quietTemporalRuntime(): void {
  try {
    Runtime.install({
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: (m, meta) => console.error(m, meta),
      },
    });
  } catch {
    // already installed in this process (another test file, or the service's worker)
  }
}

/**
 * Delivery records as a failed past would have left them (no workflow running), inserted in bulk:
 * dead-lettered after 5 attempts by default, or failed with no retry pending.
 */
export async function seedFinishedDeliveries(
  db: Db,
  webhookId: string,
  orgId: string,
  count: number,
  opts: { status?: 'dead_lettered' | 'failed' | 'delivered'; createdAt?: Date; eventType?: string } = {},
): Promise<{ id: string; body: string }[]> {
  const status = opts.status ?? 'dead_lettered';
  const at = opts.createdAt ?? new Date();
  const eventType = opts.eventType ?? 'request.created';
  const rows = Array.from({ length: count }, (_, i) => {
    const id = randomUUID();
    const body = buildBody(eventType, webhookId, at, { request: { id: `req-${i}` } });
    return {
      id,
      webhook_id: webhookId,
      org_id: orgId,
      event_type: eventType,
      body,
      status,
      attempt_count: 5,
      outcome_attempt: 5,
      http_status: 503,
      error_message: 'HTTP 503',
      dlq_at: status === 'dead_lettered' ? at : null,
      dlq_reason: status === 'dead_lettered' ? 'max_attempts' : null,
      workflow_id: deliveryWorkflowId(id),
      workflow_started_at: at,
      created_at: at,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) await db('webhook_deliveries').insert(rows.slice(i, i + 1000));
  return rows.map((r) => ({ id: r.id, body: r.body }));
}

/** Times (in the workflow's clock) at which each delivery attempt (a local activity marker in history) was recorded. */
export async function deliveryAttemptTimes(client: Client, workflowId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => {
      const marker = e.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_local_activity') return false;
      const data = JSON.parse(Buffer.from(marker.details!.data!.payloads![0]!.data!).toString()) as {
        activity_type?: string;
        activityType?: string;
      };
      return (data.activity_type ?? data.activityType) === 'attemptWebhookDelivery';
    })
    .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
}
