import { oneOf, scalar, search } from '../../lib/search';
import { RANGES, SEARCH_KEYS, type SearchKey } from './lib/filters';

/**
 * The request log's URL: every filter of the builder under the API's names, the date range
 * (a preset, or `custom` with from / to) and a saved filter, so a view can be shared as a link.
 */
const filters = Object.fromEntries(SEARCH_KEYS.map((k) => [k, scalar()])) as Record<
  SearchKey,
  ReturnType<typeof scalar>
>;
export const requestsSearch = search({
  ...filters,
  saved_filter_id: scalar(),
  range: oneOf(RANGES),
  from: scalar(),
  to: scalar(),
});
