/**
 * The workflow's clock. Inside Temporal's sandbox `Date` is deterministic: it reads the time of the
 * workflow task being processed, the same on every replay. Workflows take time only from here, so a
 * reader sees at once that it is workflow time, and the lint bans `Date.now()` everywhere else in
 * workflows/.
 */
export const workflowNow = (): number => Date.now();

/** Workflow time, or a given one, as ISO text. */
export const workflowIso = (ms: number = workflowNow()): string => new Date(ms).toISOString();
