import { createPgAnalytics } from '../src/analytics/store';
import { recomputeAll } from '../src/recommendations/service';
import type { ActivityDeps } from './deps';

/** Side effects of the recommendations workflow. */
export function recommendationActivities({ db }: ActivityDeps) {
  const analytics = createPgAnalytics(db);
  return { recomputeRecommendations: (at: string) => recomputeAll(db, analytics, Date.parse(at)) };
}

/**
 * The activities of the recommendations workflow (workflows/recommendations.ts): the one type that workflow imports.
 */
export type RecommendationActivities = ReturnType<typeof recommendationActivities>;
