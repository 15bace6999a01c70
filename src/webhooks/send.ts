import type { Keyring } from '../auth/crypto';
import type { Metrics } from '../metrics/metrics';
import { attemptEvidence, type AttemptEvidence } from './evidence';
import type { AttemptOutcome, SafeHttpClient } from './safe-http';
import { decryptWebhookSecret } from './secrets';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signBody } from './signing';

/** What a send needs: the runtime's guarded client and keyring, and the metrics it counts in. */
export interface SendDeps {
  http: SafeHttpClient;
  keyring: Keyring;
  metrics: Pick<Metrics, 'webhookAttempts'>;
}

/** The webhook columns a send reads. */
export interface SendTarget {
  id: string;
  url: string;
  secret_ciphertext: string;
  master_key_id: string;
}

/** An attempt's outcome and what the attempt history keeps of it (no signature, no secret). */
export type SentAttempt = AttemptOutcome & { evidence: AttemptEvidence };

/**
 * One signed attempt: decrypts the webhook's secret, signs the exact body bytes, POSTs them with
 * the delivery id through the SSRF-guarded client, and counts the outcome. The one send of the
 * service: the API's test delivery, the workflow's attempts and recoveries all go through here.
 */
export async function sendSigned(deps: SendDeps, kind: 'delivery' | 'test' | 'recovery', hook: SendTarget, body: string, deliveryId: string): Promise<SentAttempt> {
  const secret = decryptWebhookSecret(deps.keyring, hook.id, hook.secret_ciphertext, hook.master_key_id);
  const signature = signBody(body, secret);
  const out = await deps.http.post(hook.url, body, { [SIGNATURE_HEADER]: signature, [DELIVERY_ID_HEADER]: deliveryId });
  deps.metrics.webhookAttempts.inc({ outcome: out.ok ? 'delivered' : 'failed', kind });
  return { ...out, evidence: attemptEvidence(out, [signature, signature.slice('sha256='.length), secret]) };
}
