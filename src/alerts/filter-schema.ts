import { z } from 'zod';
import { MEASURES } from '../anomalies/detector';
import { storedFilterShape } from '../filters/stored';
import { FINDING_KINDS, SEVERITIES } from '../security/detectors/types';

// Apart from schemas.ts, which lists the alert types of ./sources: the sources take this type, so
// keeping it there made schemas.ts and sources/ import each other.

/**
 * An alert rule's filter: the stored filter language (src/filters/stored.ts) plus the fields of the
 * non-request alert types. Stored as sent; src/alerts/filter.ts turns it into a RequestFilter.
 */
export const alertFilterSchema = z
  .object({
    ...storedFilterShape,
    measure: z.enum(MEASURES).optional().describe('type anomaly only: anomalies of this measure'),
    severity: z.enum(SEVERITIES).optional().describe('type security_finding only: this severity or above'),
    finding_kind: z
      .enum(FINDING_KINDS)
      .optional()
      .describe('type security_finding only: secret, pii or prompt_injection'),
  })
  .strict();
/** Filter fields that belong to the non-request alert types (src/alerts/sources/findings.ts). */
export const NON_REQUEST_FILTER_KEYS = ['measure', 'severity', 'finding_kind'] as const;
export type AlertFilter = z.infer<typeof alertFilterSchema>;
