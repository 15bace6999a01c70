import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Task queue names live here and nowhere else. */
export const taskQueues = {
  /** Default queue; its real name comes from TEMPORAL_TASK_QUEUE. */
  main: (configured: string) => configured,
} as const;

/**
 * Custom search attributes, registered wherever a server is started (dev server flags,
 * operator API for an external server) so operators can find workflows in the Web UI.
 */
export const searchAttributes = {
  WebhookId: defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  OrganizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  ProjectId: defineSearchAttributeKey('ProjectId', SearchAttributeType.KEYWORD),
} as const;

export const searchAttributeNames = Object.keys(searchAttributes) as (keyof typeof searchAttributes)[];
