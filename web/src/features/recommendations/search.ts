import { oneOf, search } from '../../lib/search';

export const RECOMMENDATION_STATUSES = ['open', 'dismissed'] as const;
export const recommendationsSearch = search({ status: oneOf(RECOMMENDATION_STATUSES) });
