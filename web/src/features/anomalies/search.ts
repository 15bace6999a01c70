import { oneOf, search } from '../../lib/search';

export const ANOMALY_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export const anomaliesSearch = search({ status: oneOf(ANOMALY_STATUSES) });
