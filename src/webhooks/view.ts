import { isoOrNull } from '../db/convert';
import type { WebhookRow } from './queries';
import type { WebhookView } from './schemas';
import { maskedSecret } from './secrets';

/** The webhook object of the API: the secret masked unless given (create and rotate show it once). */
export function toView(row: WebhookRow, secret?: string): WebhookView {
  const previousUntil = row.previous_secret_expires_at;
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    secret: secret ?? maskedSecret(row.secret_hint),
    events: row.events as WebhookView['events'],
    is_active: row.is_active,
    // A previous secret past its expiry no longer signs anything: shown as none.
    previous_secret_expires_at:
      previousUntil && previousUntil.getTime() > Date.now() ? previousUntil.toISOString() : null,
    disabled_reason: row.disabled_reason ?? null,
    disabled_at: isoOrNull(row.disabled_at),
    header_names: row.header_names ?? [],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
