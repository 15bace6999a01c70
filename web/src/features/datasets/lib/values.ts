/**
 * Item fields as the editor shows them: text stays text; JSON (objects, arrays, numbers, true,
 * false, null) is written as JSON and read back as JSON, so `{"q": 1}` is an object, `hello` a string.
 */
export function toField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return looksJson(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v, null, 2);
}

const looksJson = (s: string) => /^\s*([[{"]|-?\d|true\s*$|false\s*$|null\s*$)/.test(s);

export function fromField(s: string): unknown {
  if (!looksJson(s)) return s;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
}

/** `"{ …"` that is not valid JSON: likely a typo, so the editor says so rather than store text. */
export function jsonError(s: string): string | null {
  if (!/^\s*[[{]/.test(s)) return null;
  try {
    JSON.parse(s);
    return null;
  } catch (e) {
    return `Not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** One line for a cell: text as it is, JSON compact. */
export const short = (v: unknown) =>
  v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);

export const SPLIT = /^[a-z][a-z0-9_-]{0,31}$/;
export const splitError = (v: string) =>
  !v.trim() || SPLIT.test(v.trim()) ? null : 'Lower-case letters, digits, _ and - (e.g. train, test)';

const CHANGES: Record<string, string> = {
  api: 'items written',
  archive: 'item deleted',
  'upload:csv': 'CSV upload',
  'upload:jsonl': 'JSON Lines upload',
};
/** A version's change, said plainly: `production:requests:newest` → "from requests (newest): 2 added". */
export function changeText(v: { change: string; added: number; updated: number; archived: number }): string {
  const m = /^production:(\w+):(\w+)$/.exec(v.change);
  const what = m ? `from ${m[1]} (${m[2]})` : (CHANGES[v.change] ?? v.change);
  const counts = [
    [v.added, 'added'],
    [v.updated, 'updated'],
    [v.archived, 'deleted'],
  ]
    .filter(([n]) => Number(n) > 0)
    .map(([n, w]) => `${n} ${w}`);
  return counts.length ? `${what}: ${counts.join(', ')}` : what;
}
