import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes, registered wherever a server is started (dev server flags,
 * operator API for an external server, `temporal operator search-attribute create` in
 * production: docs/operators.md) so operators can find workflows in the Web UI.
 * Imported by workflow code too (webhook delivery keeps DeliveryStatus and AttemptCount current).
 */
export const searchAttributes = {
  WebhookId: defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  OrganizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  ProjectId: defineSearchAttributeKey('ProjectId', SearchAttributeType.KEYWORD),
  /** A delivery's status as on its record: pending, failed, delivered, dead_lettered, cancelled. */
  DeliveryStatus: defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD),
  /** Attempts a delivery has made (0 before the first). */
  AttemptCount: defineSearchAttributeKey('AttemptCount', SearchAttributeType.INT),
} as const;

type AttrType = (typeof searchAttributes)[keyof typeof searchAttributes]['type'];

/**
 * The type as `temporal server start-dev --search-attribute` and `temporal operator search-attribute create` spell it.
 */
export const cliTypeName: Record<AttrType, string> = { KEYWORD: 'Keyword', INT: 'Int' };

/** The type as the operator API's IndexedValueType enum numbers it (temporal.api.enums.v1). */
export const indexedValueType: Record<AttrType, number> = { KEYWORD: 2, INT: 3 };
