import type { Keyring } from '../auth/crypto';
import type { Metrics } from '../metrics/metrics';
import { decryptCustomHeaders, evidenceSecrets } from './custom-headers';
import { attemptEvidence, type AttemptEvidence } from './evidence';
import type { HookToSend } from './queries';
import type { AttemptOutcome, SafeHttpClient } from './safe-http';
import { decryptWebhookSecret } from './secrets';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signBody, standardHeaders } from './signing';

/** What a send needs: the runtime's guarded client and keyring, and the metrics it counts in. */
export interface SendDeps {
  http: SafeHttpClient;
  keyring: Keyring;
  metrics: Pick<Metrics, 'webhookAttempts'>;
}

/** The webhook columns a send reads (previous_* may be absent: no rotation pending). */
type PreviousSecret = 'previous_secret_ciphertext' | 'previous_master_key_id' | 'previous_secret_expires_at';
export type SendTarget = Omit<HookToSend, PreviousSecret> & Partial<Pick<HookToSend, PreviousSecret>>;

/** An attempt's outcome and what the attempt history keeps of it (no signature, no secret). */
export type SentAttempt = AttemptOutcome & { evidence: AttemptEvidence };

/** The secrets valid at `now`: the current one, then the one a rotation replaced until it expires. */
export function validSecrets(ring: Keyring, hook: SendTarget, now: number): string[] {
  const secrets = [decryptWebhookSecret(ring, hook.id, hook.secret_ciphertext, hook.master_key_id)];
  const until = hook.previous_secret_expires_at;
  if (hook.previous_secret_ciphertext && hook.previous_master_key_id && until && new Date(until).getTime() > now) {
    secrets.push(decryptWebhookSecret(ring, hook.id, hook.previous_secret_ciphertext, hook.previous_master_key_id));
  }
  return secrets;
}

/**
 * One signed attempt: decrypts the webhook's valid secrets, signs the exact body bytes (the
 * X-Service-Signature with the current secret; the Standard Webhooks signature with each valid
 * one, over this attempt's time), POSTs them with the delivery id through the SSRF-guarded client,
 * and counts the outcome. The one send of the service: the API's test delivery, the workflow's
 * attempts and recoveries all go through here, so each reads the secrets current at its attempt.
 */
export async function sendSigned(
  deps: SendDeps,
  kind: 'delivery' | 'test' | 'recovery',
  hook: SendTarget,
  body: string,
  deliveryId: string,
): Promise<SentAttempt> {
  const now = Date.now();
  const secrets = validSecrets(deps.keyring, hook, now);
  const signature = signBody(body, secrets[0]!);
  const standard = standardHeaders(deliveryId, Math.floor(now / 1000), body, secrets);
  const custom = decryptCustomHeaders(deps.keyring, hook);
  // Ours last: validation already refuses their names, this makes sure they cannot be overridden.
  const headers = { ...custom, [SIGNATURE_HEADER]: signature, [DELIVERY_ID_HEADER]: deliveryId, ...standard.headers };
  const out = await deps.http.post(hook.url, body, headers);
  deps.metrics.webhookAttempts.inc({ outcome: out.ok ? 'delivered' : 'failed', kind });
  // Everything signed or secret is scrubbed from what the history keeps, whole and bare.
  const never = [
    standard.headers['webhook-signature'],
    ...standard.digests,
    signature,
    signature.slice('sha256='.length),
    ...secrets,
    ...evidenceSecrets(custom),
  ];
  return { ...out, evidence: attemptEvidence(out, never) };
}
