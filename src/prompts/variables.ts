/**
 * The `{{variable}}` names a prompt template uses, in order of first use: from a string template,
 * or from the text of each chat message (string content or text parts).
 */
const VAR = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

export function templateVariables(template: unknown): string[] {
  const seen = new Set<string>();
  const scan = (text: string) => {
    for (const m of text.matchAll(VAR)) seen.add(m[1]!);
  };
  if (typeof template === 'string') scan(template);
  else if (Array.isArray(template)) {
    for (const m of template as { content?: unknown }[]) {
      if (typeof m?.content === 'string') scan(m.content);
      else if (Array.isArray(m?.content))
        for (const part of m.content as { text?: unknown }[]) if (typeof part?.text === 'string') scan(part.text);
    }
  }
  return [...seen];
}

/** Fills `{{variable}}`s from `values`; a variable without a value is an error naming it. */
export function fillTemplate(text: string, values: Record<string, string>, missing: (name: string) => Error): string {
  return text.replace(VAR, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw missing(name);
    return v;
  });
}
