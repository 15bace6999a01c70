/**
 * Cheaper models of the same provider for calls that are mostly short (facts about each
 * provider's line-up; matched by prefix, longest first). Prices come from @pydantic/genai-prices.
 */
const SUBSTITUTES: { provider: string; prefix: string; cheaper: string }[] = [
  { provider: 'openai', prefix: 'gpt-4o-mini', cheaper: '' },
  { provider: 'openai', prefix: 'gpt-4o', cheaper: 'gpt-4o-mini' },
  { provider: 'openai', prefix: 'gpt-4.1-mini', cheaper: 'gpt-4.1-nano' },
  { provider: 'openai', prefix: 'gpt-4.1-nano', cheaper: '' },
  { provider: 'openai', prefix: 'gpt-4.1', cheaper: 'gpt-4.1-mini' },
  { provider: 'openai', prefix: 'gpt-4-turbo', cheaper: 'gpt-4o-mini' },
  { provider: 'openai', prefix: 'o1-mini', cheaper: '' },
  { provider: 'openai', prefix: 'o1', cheaper: 'o3-mini' },
  { provider: 'anthropic', prefix: 'claude-opus-4', cheaper: 'claude-sonnet-4-20250514' },
  { provider: 'anthropic', prefix: 'claude-3-opus', cheaper: 'claude-3-5-haiku-latest' },
  { provider: 'anthropic', prefix: 'claude-sonnet-4', cheaper: 'claude-3-5-haiku-latest' },
  { provider: 'anthropic', prefix: 'claude-3-7-sonnet', cheaper: 'claude-3-5-haiku-latest' },
  { provider: 'anthropic', prefix: 'claude-3-5-sonnet', cheaper: 'claude-3-5-haiku-latest' },
  { provider: 'gemini', prefix: 'gemini-2.5-pro', cheaper: 'gemini-2.5-flash' },
  { provider: 'gemini', prefix: 'gemini-1.5-pro', cheaper: 'gemini-1.5-flash' },
  { provider: 'mistral', prefix: 'mistral-large', cheaper: 'mistral-small-latest' },
];

/** The cheaper model for a model, if any. */
export function cheaperFor(provider: string, model: string): string | null {
  const m = model.replace(/^models\//, '');
  const hit = SUBSTITUTES.filter((s) => s.provider === provider && m.startsWith(s.prefix)).sort(
    (a, b) => b.prefix.length - a.prefix.length,
  )[0];
  return hit?.cheaper || null;
}
