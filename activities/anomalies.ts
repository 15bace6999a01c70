import { createPgAnalytics } from '../src/analytics/store';
import { detectAnomalies } from '../src/anomalies/detect';
import type { ActivityDeps } from './deps';

/** Side effects of the anomaly workflow. */
export function anomalyActivities({ db }: ActivityDeps) {
  const analytics = createPgAnalytics(db);
  return {
    /** Judges every active project's last hour at `at` (ISO); returns the counts. */
    detectAnomalies: (at: string) => detectAnomalies({ db, analytics }, Date.parse(at)),
  };
}

/** The activities of the anomaly detection workflow (workflows/anomalies.ts): the one type that workflow imports. */
export type AnomalyActivities = ReturnType<typeof anomalyActivities>;
