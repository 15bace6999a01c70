import { z } from 'zod';

/** Contract of GET /api/v1/event-types (it also generates the OpenAPI document). */

export const eventTypeSchema = z
  .object({
    name: z.string().describe('the event kind, the `event` field of the body'),
    description: z.string(),
    subscribable: z.boolean().describe('whether a webhook can list it in `events` (false for `test`)'),
    schema: z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) of the whole delivery body'),
    example: z.record(z.string(), z.unknown()).describe('an example body'),
  })
  .meta({ id: 'EventType' });
export type EventTypeView = z.infer<typeof eventTypeSchema>;
