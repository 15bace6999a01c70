/**
 * A prompt reference: `<name>@<version>`, `<name>@latest`, `<name>@<label>` or a prompt-version
 * UUID. The proxy reads it from `x-service-prompt-version`; prompts, the playground and
 * experiments resolve the same syntax.
 */
export type PromptRef =
  { kind: 'id'; id: string } | { kind: 'name'; name: string; version: number | 'latest' | { label: string } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PROMPT_NAME = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,127}$/;
/** A prompt version label (`production`, `staging`, …); `latest` is automatic, never a label. */
export const PROMPT_LABEL = /^(?!latest$)[a-z][a-z0-9_-]{0,49}$/;

/** `<name>@<version>`, `<name>@latest`, `<name>@<label>` or a prompt-version UUID; null when malformed. */
export function parsePromptRef(raw: string): PromptRef | null {
  const v = raw.trim();
  if (UUID.test(v)) return { kind: 'id', id: v.toLowerCase() };
  const at = v.lastIndexOf('@');
  if (at <= 0) return null;
  const name = v.slice(0, at);
  const ver = v.slice(at + 1);
  if (!PROMPT_NAME.test(name)) return null;
  if (ver === 'latest') return { kind: 'name', name, version: 'latest' };
  if (PROMPT_LABEL.test(ver)) return { kind: 'name', name, version: { label: ver } };
  if (!/^[1-9]\d{0,8}$/.test(ver)) return null;
  return { kind: 'name', name, version: Number(ver) };
}
