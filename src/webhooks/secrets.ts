import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, type Keyring } from '../auth/crypto';

/**
 * Webhook secrets: 32 lowercase hex characters (128 bits) made by the server, shown once, stored
 * AES-256-GCM encrypted under the master key (they must be recoverable to sign), bound to their
 * webhook id so a ciphertext copied onto another row does not decrypt.
 */
export const generateWebhookSecret = () => randomBytes(16).toString('hex');

/** What reads show instead of the secret: its first 4 characters and an ellipsis. */
const SECRET_HINT_LENGTH = 4;
export const secretHint = (secret: string) => secret.slice(0, SECRET_HINT_LENGTH);
export const maskedSecret = (hint: string) => `${hint}…`;

const aad = (webhookId: string) => `webhook:${webhookId}`;

export function encryptWebhookSecret(ring: Keyring, webhookId: string, secret: string) {
  return encryptSecret(ring, secret, aad(webhookId));
}

export function decryptWebhookSecret(ring: Keyring, webhookId: string, ciphertext: string, keyId: string): string {
  return decryptSecret(ring, ciphertext, keyId, aad(webhookId));
}
