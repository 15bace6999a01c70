import type { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

type SearchAttributeKey<T extends SearchAttributeType> = ReturnType<typeof defineSearchAttributeKey<T>>;

// What the SDK's defineSearchAttributeKey returns, spelled out: importing @temporalio/common at
// run time would load it (and its protobuf long) into an api that never talks to Temporal on the proxy path.
const key = <T extends SearchAttributeType>(name: string, type: T): SearchAttributeKey<T> => ({ name, type });

/**
 * Custom search attributes, registered wherever a server is started (dev server flags,
 * operator API for an external server, `temporal operator search-attribute create` in
 * production: docs/operators.md) so operators can find workflows in the Web UI.
 * Imported by workflow code too (webhook delivery keeps DeliveryStatus and AttemptCount current).
 */
export const searchAttributes = {
  WebhookId: key('WebhookId', 'KEYWORD'),
  EventType: key('EventType', 'KEYWORD'),
  OrganizationId: key('OrganizationId', 'KEYWORD'),
  ProjectId: key('ProjectId', 'KEYWORD'),
  /** A delivery's status as on its record: pending, failed, delivered, dead_lettered, cancelled. */
  DeliveryStatus: key('DeliveryStatus', 'KEYWORD'),
  /** Attempts a delivery has made (0 before the first). */
  AttemptCount: key('AttemptCount', 'INT'),
} as const;

type AttrType = (typeof searchAttributes)[keyof typeof searchAttributes]['type'];

/**
 * The type as `temporal server start-dev --search-attribute` and `temporal operator search-attribute create` spell it.
 */
export const cliTypeName: Record<AttrType, string> = { KEYWORD: 'Keyword', INT: 'Int' };

/** The type as the operator API's IndexedValueType enum numbers it (temporal.api.enums.v1). */
export const indexedValueType: Record<AttrType, number> = { KEYWORD: 2, INT: 3 };
