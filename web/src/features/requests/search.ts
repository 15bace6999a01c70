import { search, text } from '../../lib/search';

/** The request log's filters (the API's names, so a URL reads like the API call it makes). */
export const REQUEST_FILTERS = ['model', 'provider', 'user_id', 'status'] as const;
export const requestsSearch = search({ model: text(), provider: text(), user_id: text(), status: text() });
