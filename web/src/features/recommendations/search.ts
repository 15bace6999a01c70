import { oneOf, search, text } from '../../lib/search';

export const RECOMMENDATION_STATUSES = ['open', 'dismissed'] as const;
/** `id` opens that recommendation beside the list. */
export const recommendationsSearch = search({ status: oneOf(RECOMMENDATION_STATUSES), id: text() });
