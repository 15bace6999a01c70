import { createDetector } from '../src/security/detect';
import { scanBatch } from '../src/security/scan';
import type { ActivityDeps } from './deps';

/** Queue rows per batch: about a second of scanning on 4 KB bodies (bench:security). */
export const SCAN_BATCH = 500;

/** Side effects of the security scan workflow; the detector (and its loaded rule corpus) is built once per worker. */
export function securityActivities({ db, keyring }: ActivityDeps) {
  const detector = createDetector(keyring);
  return { scanSecurityBatch: () => scanBatch(db, detector, SCAN_BATCH) };
}
