/** What a detector reports: never stored as is (the value only feeds the fingerprint and the mask). */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const FINDING_KINDS = ['secret', 'pii', 'prompt_injection'] as const;
type FindingKind = (typeof FINDING_KINDS)[number];

export interface Detection {
  kind: FindingKind;
  /** e.g. `github`, `credit_card`, `instruction_override`. */
  category: string;
  severity: Severity;
  /** Which rule matched, e.g. `secretlint:github/GITHUB_TOKEN` or `pii:luhn`. */
  detector: string;
  /** Where the value itself lies (a secret's, not the label or URL around it). */
  start: number;
  end: number;
  /** The value (hashed into the fingerprint; normalised for digits, e-mails, PEM bodies and phrases). */
  value: string;
  /** The value as shown in an excerpt: enough to recognise, never enough to use. */
  masked: string;
}

export const severityRank = (s: Severity) => SEVERITIES.indexOf(s);
