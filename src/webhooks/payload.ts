/**
 * The webhook body: `event`, `webhook_id`, `timestamp` (first dispatch, ISO 8601), then the event's
 * own object(s). Built once per delivery and stored, so every attempt sends the same bytes.
 */
export function buildBody(
  event: string,
  webhookId: string,
  timestamp: Date | string,
  object: Record<string, unknown> = {},
): string {
  const { event: _e, webhook_id: _w, timestamp: _t, ...rest } = object;
  const iso = typeof timestamp === 'string' ? timestamp : timestamp.toISOString();
  return JSON.stringify({ event, webhook_id: webhookId, timestamp: iso, ...rest });
}
