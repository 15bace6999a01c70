/** One line of a diff: kept, removed (from the old version) or added (in the new). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** A line diff by longest common subsequence: enough for prompt templates (tens of lines). */
export function diffLines(a: string, b: string): DiffLine[] {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      L[i]![j] = x[i] === y[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) (out.push({ op: ' ', text: x[i]! }), i++, j++);
    else if (L[i + 1]![j]! >= L[i]![j + 1]!) out.push({ op: '-', text: x[i++]! });
    else out.push({ op: '+', text: y[j++]! });
  }
  while (i < n) out.push({ op: '-', text: x[i++]! });
  while (j < m) out.push({ op: '+', text: y[j++]! });
  return out;
}

/** A template as text: chat messages as `[role]` headed blocks (other content as indented JSON). */
export function templateText(t: unknown): string {
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    return t
      .map((m: unknown) => {
        const { role, content } =
          typeof m === 'object' && m !== null
            ? (m as { role?: unknown; content?: unknown })
            : { role: undefined, content: m };
        const body = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
        return `[${typeof role === 'string' ? role : '?'}]\n${body}`;
      })
      .join('\n\n');
  }
  return JSON.stringify(t, null, 2) ?? '';
}
