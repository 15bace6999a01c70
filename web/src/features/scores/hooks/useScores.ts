import { unwrapPage } from '../../../api/client';
import { useApiPages } from '../../../api/query';
import type { QueryOf, Schema } from '../../../api/types';
import { SCORE_DATA_TYPES, SCORE_SOURCES, SCORE_TARGETS } from '../search';

type Score = Schema<'Score'>;
type Exactly<T, L extends readonly T[]> = [T] extends [L[number]] ? L : never;
// The lists in search.ts must name exactly the API's values (a compile error otherwise).
export const DATA_TYPES: Exactly<Score['data_type'], typeof SCORE_DATA_TYPES> = SCORE_DATA_TYPES;
export const SOURCES: Exactly<Score['source'], typeof SCORE_SOURCES> = SCORE_SOURCES;
export const TARGETS: Exactly<Score['target_type'], typeof SCORE_TARGETS> = SCORE_TARGETS;

export type ScoreFilter = Pick<
  QueryOf<'/api/v1/scores'>,
  'name' | 'data_type' | 'source' | 'target_type' | 'from' | 'to'
>;

/** Scores, newest first, 200 a page (keyset cursor). */
export const useScorePages = (filter: ScoreFilter) =>
  useApiPages(['scores', 'list', filter], ({ api, projectId, cursor, signal }) =>
    unwrapPage(
      api.GET('/api/v1/scores', {
        params: {
          query: {
            ...filter,
            limit: 200,
            ...(cursor ? { cursor } : {}),
            ...(projectId ? { project_id: projectId } : {}),
          },
        },
        signal,
      }),
    ),
  );
