/**
 * Who receives events: the one definition of a webhook that does, used by the outbox emitter, the
 * dispatcher's fan-out (src/webhooks/dispatch) and the attempt's claim, on the alias it names. It
 * lives with the events so that webhooks depend on events and never the other way.
 */
/** Not deleted and active. */
export const activeWebhookSql = (w: string) => `${w}.deleted_at is null and ${w}.is_active`;
/** …and subscribed to the event kind given by the SQL expression `kind`. */
export const subscribedWebhookSql = (w: string, kind: string) =>
  `${activeWebhookSql(w)} and ${kind} = any(${w}.events)`;
