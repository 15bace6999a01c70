import type { AppContext } from '../context';
import { route } from '../http/route';
import { eventCatalogue, eventJsonSchema } from './catalogue';
import { eventTypeSchema, type EventTypeView } from './schemas';

const view = (): EventTypeView[] =>
  eventCatalogue.map((d) => ({
    name: d.name,
    description: d.description,
    subscribable: d.subscribable,
    schema: eventJsonSchema(d),
    example: d.example,
  }));

/** The event catalogue: readable by every role, like the webhooks it describes (docs/webhooks.md). */
export const eventTypeRoutes = (_ctx: AppContext) => [
  route({
    method: 'get',
    path: '/api/v1/event-types',
    tag: 'Webhooks',
    auth: 'jwt',
    summary: 'Every event kind a webhook can receive, with a description, the JSON Schema of its body and an example',
    response: eventTypeSchema.array(),
    example: [view()[0]],
    handler: () => view(),
  }),
];
