import { z } from 'zod';
import type { EventKind } from './outbox';

/**
 * The event catalogue: every body a webhook can receive, as a zod schema (GET /api/v1/event-types
 * serves its JSON Schema). The emitters build their objects elsewhere (src/requests/writer.ts,
 * src/ingest/store.ts, src/alerts/evaluate.ts), so test/integration/events/catalogue.test.ts checks
 * the bodies real flows deliver against these schemas: the catalogue cannot drift unnoticed.
 * Objects are strict so a field added by an emitter fails that test until it is catalogued here.
 */

const uuid = () => z.uuid();
const isoTime = () => z.iso.datetime({ offset: true });

const envelope = <K extends string>(kind: K) => ({
  event: z.literal(kind).describe('the event kind'),
  webhook_id: uuid().describe('the webhook this delivery is for'),
  timestamp: isoTime().describe('time of first dispatch (ISO 8601); identical on every retry'),
});

const requestCreated = z
  .strictObject({
    ...envelope('request.created'),
    request: z.strictObject({
      id: uuid(),
      provider: z.string().describe('provider slug, e.g. `openai`'),
      model: z.string(),
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
      cost_usd: z.number().nullable().describe('null when not computed (self-hosted runtimes)'),
      latency_ms: z.number().int(),
      status_code: z.number().int().describe('HTTP status the provider answered'),
      trace_id: z.string().nullable().describe('the trace the call was linked to, if any'),
      created_at: isoTime(),
    }),
  })
  .describe('A proxied model call was recorded');

const traceCompleted = z
  .strictObject({
    ...envelope('trace.completed'),
    trace: z.strictObject({
      id: z.string().describe('the trace id as ingested (SDK id or OTLP hex id)'),
      status: z.enum(['completed', 'error']),
      ended_at: isoTime(),
      duration_ms: z.number().int().nullable(),
    }),
  })
  .describe('The last span of an agent trace closed');

const alertTriggered = z
  .strictObject({
    ...envelope('alert.triggered'),
    // Loose: sources add their own details (e.g. `user_id` of the worst end user), docs/alerts.md.
    alert: z.looseObject({
      id: uuid().describe('the alert rule'),
      name: z.string(),
      type: z.string().describe('the rule type (docs/alerts.md)'),
      threshold: z.number(),
      current_value: z.number().nullable().describe('null when the window had no data'),
      window_minutes: z.number().int(),
      operator: z.enum(['gt', 'gte', 'lt', 'lte']),
      warning_threshold: z.number().nullable(),
      project_id: uuid().nullable(),
      group_by: z.string().nullable(),
      group: z.string().nullable(),
      requests: z.number().int().nullable(),
      event_id: uuid().describe('the alert event (GET /api/v1/alerts/:id/events)'),
      triggered_at: isoTime(),
    }),
    organization: z.strictObject({ name: z.string().describe('the organization name when the delivery was built') }),
  })
  .describe('An alert rule crossed its threshold and notifies');

const testPing = z
  .strictObject(envelope('test'))
  .describe('Sent only by POST /api/v1/webhooks/:id/test; no event object');

export interface EventTypeDef {
  name: EventKind | 'test';
  description: string;
  /** False for `test`: it is sent on demand and cannot be subscribed to. */
  subscribable: boolean;
  schema: z.ZodType;
  example: Record<string, unknown>;
}

const WEBHOOK = '0b6f3c1e-8a52-4f0e-9d1a-3c5e7f9a2b41';
const AT = '2026-01-31T12:00:00.000Z';

const defs: Record<EventKind | 'test', Omit<EventTypeDef, 'name'>> = {
  'request.created': {
    description: 'After the proxy receives a model response and records the request.',
    subscribable: true,
    schema: requestCreated,
    example: {
      event: 'request.created',
      webhook_id: WEBHOOK,
      timestamp: AT,
      request: {
        id: '5d2c7a90-1f43-4b8e-a6d2-9e0f1b3c4d5e',
        provider: 'openai',
        model: 'gpt-4o-mini',
        prompt_tokens: 11,
        completion_tokens: 7,
        total_tokens: 18,
        cost_usd: 0.0000059,
        latency_ms: 412,
        status_code: 200,
        trace_id: null,
        created_at: '2026-01-31T11:59:59.588Z',
      },
    },
  },
  'trace.completed': {
    description: 'When the last span of an agent trace closes (once per trace).',
    subscribable: true,
    schema: traceCompleted,
    example: {
      event: 'trace.completed',
      webhook_id: WEBHOOK,
      timestamp: AT,
      trace: { id: 'support-agent-7f3a', status: 'completed', ended_at: '2026-01-31T11:59:58.000Z', duration_ms: 750 },
    },
  },
  'alert.triggered': {
    description: 'When an alert rule exceeds its threshold and sends a notification.',
    subscribable: true,
    schema: alertTriggered,
    example: {
      event: 'alert.triggered',
      webhook_id: WEBHOOK,
      timestamp: AT,
      alert: {
        id: '7a1e2b3c-4d5e-4f60-8172-93a4b5c6d7e8',
        name: 'Spend',
        type: 'cost',
        threshold: 1,
        current_value: 1.5,
        window_minutes: 15,
        operator: 'gt',
        warning_threshold: null,
        project_id: null,
        group_by: null,
        group: null,
        requests: 3,
        event_id: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
        triggered_at: '2026-01-31T11:59:59.000Z',
      },
      organization: { name: 'Acme' },
    },
  },
  test: {
    description: 'A ping sent only by POST /api/v1/webhooks/:id/test; not subscribable.',
    subscribable: false,
    schema: testPing,
    example: { event: 'test', webhook_id: WEBHOOK, timestamp: AT },
  },
};

/** Every event kind the service sends, subscribable kinds first, in a stable order. */
export const eventCatalogue: readonly EventTypeDef[] = Object.entries(defs).map(([name, d]) => ({
  name: name as EventTypeDef['name'],
  ...d,
}));

/** The catalogue entry of a kind, or undefined for an unknown one. */
export const eventTypeDef = (name: string): EventTypeDef | undefined => eventCatalogue.find((d) => d.name === name);

let jsonSchemas: Map<string, Record<string, unknown>> | undefined;
/** The JSON Schema (draft 2020-12) of a kind's body, built once from its zod schema. */
export function eventJsonSchema(def: EventTypeDef): Record<string, unknown> {
  const toJson = (d: EventTypeDef) => z.toJSONSchema(d.schema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  jsonSchemas ??= new Map(eventCatalogue.map((d) => [d.name, toJson(d)]));
  return jsonSchemas.get(def.name)!;
}
