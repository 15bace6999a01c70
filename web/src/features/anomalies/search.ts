import { oneOf, search, text } from '../../lib/search';

export const ANOMALY_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
/** `id` opens that anomaly beside the list. */
export const anomaliesSearch = search({ status: oneOf(ANOMALY_STATUSES), id: text() });
