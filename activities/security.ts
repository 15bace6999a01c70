import { createDetector } from '../src/security/detect';
import { scanBatch } from '../src/security/scan';
import type { ActivityDeps } from './deps';

/**
 * Queue rows (writer batches of up to 500 bodies each) per activity: a few seconds of scanning at most
 * (bench:security).
 */
const SCAN_BATCHES = 4;

/** Side effects of the security scan workflow; the detector (and its loaded rule corpus) is built once per worker. */
export function securityActivities({ db, keyring }: ActivityDeps) {
  const detector = createDetector(keyring);
  return { scanSecurityBatch: () => scanBatch(db, detector, SCAN_BATCHES) };
}

/** The activities of the security scan workflow (workflows/security.ts): the one type that workflow imports. */
export type SecurityActivities = ReturnType<typeof securityActivities>;
