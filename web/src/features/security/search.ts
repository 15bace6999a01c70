import { oneOf, search, text } from '../../lib/search';

export const FINDING_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export const FINDING_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/** `id` opens that finding beside the list. */
export const securitySearch = search({
  status: oneOf(FINDING_STATUSES),
  min_severity: oneOf(FINDING_SEVERITIES),
  id: text(),
});
