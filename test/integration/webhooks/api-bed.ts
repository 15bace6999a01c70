import { startTestApp, type TestApp } from '../../helpers/app';
import { seedTenant, type SeededTenant } from '../../helpers/auth';
import { startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';

/**
 * What the deliveries' and recoveries' API tests share: an HTTPS receiver on loopback that the service may call, the
 * real service (with its worker for `all`; the outbox polled once a minute) and two tenants.
 */
export interface ApiBed {
  app: TestApp;
  receiver: HttpsReceiver;
  t: SeededTenant;
  other: SeededTenant;
}

export async function startApiBed(role: 'all' | 'api'): Promise<ApiBed> {
  const { caFile } = await testCertificates();
  const receiver = await startHttpsReceiver();
  const app = await startTestApp({
    role,
    env: { WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_CA_FILE: caFile, WEBHOOK_DISPATCH_POLL_MS: '60000' },
  });
  const [t, other] = [await seedTenant(app), await seedTenant(app)];
  return { app, receiver, t, other };
}

export async function stopApiBed(bed: ApiBed | undefined): Promise<void> {
  await bed?.app.stop();
  await bed?.receiver.close();
}
