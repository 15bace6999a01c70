/**
 * A prompt template as the editors hold it: text, or chat messages with text content. Stored
 * templates may carry richer content (parts, tool calls); those become their JSON text here.
 */
export type ChatRole = 'system' | 'user' | 'assistant';
// A type, not an interface: it then fits the API's open message type (an index signature).
export type ChatMessage = { role: ChatRole; content: string };
export type Template = string | ChatMessage[];

export const ROLES: ChatRole[] = ['system', 'user', 'assistant'];
const asRole = (r: unknown): ChatRole => ROLES.find((x) => x === r) ?? 'user';
const asText = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c ?? '', null, 2));

/** A stored template (unknown in the API document) as an editable one. */
export function editable(t: unknown): Template {
  if (typeof t === 'string') return t;
  if (Array.isArray(t))
    return t.map((m: unknown) =>
      typeof m === 'object' && m !== null
        ? { role: asRole((m as { role?: unknown }).role), content: asText((m as { content?: unknown }).content) }
        : { role: 'user' as const, content: asText(m) },
    );
  return '';
}

/** Why a template cannot be saved, or null. */
export function templateError(t: Template): string | null {
  if (typeof t === 'string') return t.trim() ? null : 'Write the template';
  if (t.length === 0) return 'Add at least one message';
  const i = t.findIndex((m) => !m.content.trim());
  return i >= 0 ? `Message ${i + 1} is empty` : null;
}

const VAR = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

/** The `{{variables}}` a template uses, in order of first use (as the API computes them). */
export function variablesOf(t: Template): string[] {
  const seen = new Set<string>();
  for (const text of typeof t === 'string' ? [t] : t.map((m) => m.content))
    for (const m of text.matchAll(VAR)) seen.add(m[1]!);
  return [...seen];
}

/** `gpt-4o-mini` → openai, `claude-…` → anthropic: the provider a version's model most likely runs on. */
export const providerOf = (model: string) => (/^claude/i.test(model) ? 'anthropic' : 'openai');

export const sameTemplate = (a: Template, b: Template) => JSON.stringify(a) === JSON.stringify(b);
