import { eventCatalogue, eventJsonSchema, eventTypeDef } from '../../../src/events/catalogue';
import { eventKinds } from '../../../src/events/outbox';

/** The catalogue's own consistency (test/integration/events/catalogue.test.ts checks it against real bodies). */
describe('event catalogue', () => {
  it('has one entry per subscribable kind, then test', () => {
    expect(eventCatalogue.map((d) => d.name)).toEqual([...eventKinds, 'test']);
    expect(eventCatalogue.filter((d) => d.subscribable).map((d) => d.name)).toEqual([...eventKinds]);
    expect(eventTypeDef('nope')).toBeUndefined();
  });

  const entries = eventCatalogue.map((d) => [d.name, d] as const);
  it.each(entries)('%s: the example parses; another kind or an extra field does not', (_n, d) => {
    expect(d.schema.safeParse(d.example).success).toBe(true);
    expect(d.schema.safeParse({ ...d.example, event: 'other' }).success).toBe(false);
    expect(d.schema.safeParse({ ...d.example, extra: 1 }).success).toBe(false);
    expect(eventJsonSchema(d)).toMatchObject({ type: 'object', additionalProperties: false });
  });
});
