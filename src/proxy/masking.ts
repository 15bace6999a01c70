/**
 * API-key masking for stored bodies (log-body mode `full`). Anything that looks like an OpenAI
 * (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`), Google (`AIza…`) or service (`sl_live_…`) key is
 * replaced by a fixed marker, so no part of the key is kept. The left boundary stops words such
 * as "risk-free" or "task-based" from matching.
 */
const KEY_PATTERN = /(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{3,}|AIza[0-9A-Za-z_-]{3,}|sl_live_[A-Za-z0-9_-]{3,})/g;

const MASK = '[REDACTED]';

export function maskSecrets(text: string): string {
  // Fast path: most bodies contain none of the prefixes.
  if (!text.includes('sk-') && !text.includes('AIza') && !text.includes('sl_live_')) return text;
  return text.replace(KEY_PATTERN, MASK);
}
