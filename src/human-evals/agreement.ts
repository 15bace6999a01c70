/**
 * Inter-annotator agreement (docs/human-evals.md). npm has no maintained package for these (the
 * statistics packages stop at correlation), so the textbook formulas are here, tested on the
 * textbook examples: Cohen's kappa (two raters), Fleiss' kappa (any number of raters per item) for
 * categories, Krippendorff's alpha with the interval metric for numbers (missing ratings allowed).
 */

/** Cohen's kappa of two raters' labels on the same items. */
export function cohensKappa(a: string[], b: string[]): number | null {
  const n = a.length;
  if (n === 0 || n !== b.length) return null;
  const labels = [...new Set([...a, ...b])];
  const po = a.filter((x, i) => x === b[i]).length / n;
  const pe = labels.reduce(
    (s, l) => s + (a.filter((x) => x === l).length / n) * (b.filter((x) => x === l).length / n),
    0,
  );
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

/**
 * Fleiss' kappa: `counts[item][category]` = raters who chose that category; every item rated by the same number of
 * raters.
 */
export function fleissKappa(counts: number[][]): number | null {
  const N = counts.length;
  if (!N) return null;
  const n = counts[0]!.reduce((a, b) => a + b, 0);
  if (n < 2 || counts.some((row) => row.reduce((a, b) => a + b, 0) !== n)) return null;
  const k = counts[0]!.length;
  const p = Array.from({ length: k }, (_, j) => counts.reduce((s, row) => s + row[j]!, 0) / (N * n));
  const P = counts.map((row) => (row.reduce((s, c) => s + c * c, 0) - n) / (n * (n - 1)));
  const Pbar = P.reduce((a, b) => a + b, 0) / N;
  const Pe = p.reduce((s, x) => s + x * x, 0);
  return Pe === 1 ? null : (Pbar - Pe) / (1 - Pe);
}

/**
 * Krippendorff's alpha over units (items), each with the values its raters gave (missing ones left
 * out; units with fewer than 2 values do not count): 1 − D_o / D_e with δ² = (a − b)² (interval)
 * or 0/1 (nominal).
 */
export function krippendorffAlpha(units: (number | string)[][], metric: 'interval' | 'nominal'): number | null {
  const pairable = units.filter((u) => u.length >= 2);
  const values = pairable.flat();
  const n = values.length;
  if (n < 2) return null;
  const d = (x: number | string, y: number | string) =>
    metric === 'nominal' ? (x === y ? 0 : 1) : (Number(x) - Number(y)) ** 2;
  let Do = 0;
  for (const u of pairable) {
    let s = 0;
    for (let i = 0; i < u.length; i++) for (let j = 0; j < u.length; j++) if (i !== j) s += d(u[i]!, u[j]!);
    Do += s / (u.length - 1);
  }
  Do /= n;
  let De = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) De += d(values[i]!, values[j]!);
  De /= n * (n - 1);
  return De === 0 ? null : 1 - Do / De;
}
