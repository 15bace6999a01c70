import { oneOf, search, text } from '../../lib/search';

export const RANGES = ['24h', '7d', '30d'] as const;
export const overviewSearch = search({
  range: oneOf(RANGES),
  group_by: text(),
  model: text(),
  saved_filter_id: text(),
});
