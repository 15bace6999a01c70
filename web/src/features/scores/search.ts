import { oneOf, search, text } from '../../lib/search';

/** The API's enums for a score (checked against the generated types in hooks/useScores.ts). */
export const SCORE_DATA_TYPES = ['numeric', 'categorical', 'boolean'] as const;
export const SCORE_SOURCES = ['api', 'eval', 'annotation'] as const;
export const SCORE_TARGETS = ['request', 'trace', 'span', 'session', 'experiment_item'] as const;

/** The scores list's URL: the API's own filter names, `from` / `to` as ISO instants. */
export const scoresSearch = search({
  name: text(),
  data_type: oneOf(SCORE_DATA_TYPES),
  source: oneOf(SCORE_SOURCES),
  target_type: oneOf(SCORE_TARGETS),
  from: text(),
  to: text(),
});
