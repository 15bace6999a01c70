import { oneOf, search, text } from '../../lib/search';

/** The attempt log's time presets (open-ended up to now) and the health row's windows (the API's `/stats` ones). */
export const ATTEMPT_RANGES = ['1h', '24h', '7d', '30d'] as const;
export const HEALTH_WINDOWS = ['24h', '7d', '30d'] as const;
export const ATTEMPT_OUTCOMES = ['delivered', 'failed'] as const;
export const HTTP_CLASSES = ['2xx', '4xx', '5xx'] as const;
export const ATTEMPT_EVENTS = ['request.created', 'trace.completed', 'alert.triggered', 'test'] as const;

/**
 * The webhooks page's URL: whose attempt log is open (`log`, a webhook id), its filters under the
 * API's names (`status`, `http_status`, `event_type`; `range` becomes `since`) and the health
 * row's window, so `/webhooks?log=<id>&status=failed&range=24h` opens the same view.
 */
export const webhooksSearch = search({
  log: text(),
  status: oneOf(ATTEMPT_OUTCOMES),
  http_status: oneOf(HTTP_CLASSES),
  event_type: oneOf(ATTEMPT_EVENTS),
  range: oneOf(ATTEMPT_RANGES),
  health: oneOf(HEALTH_WINDOWS),
});
export type WebhooksSearch = ReturnType<typeof webhooksSearch>;
export type AttemptRange = (typeof ATTEMPT_RANGES)[number];
export type HealthWindow = (typeof HEALTH_WINDOWS)[number];
