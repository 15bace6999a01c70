import { cohensKappa, fleissKappa, krippendorffAlpha } from '../../../src/human-evals/agreement';

/** The agreement statistics on their textbook examples. */
describe('agreement statistics', () => {
  it("Cohen's kappa: 50 items, 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no → 0.4", () => {
    const a = [...Array(20).fill('y'), ...Array(5).fill('y'), ...Array(10).fill('n'), ...Array(15).fill('n')];
    const b = [...Array(20).fill('y'), ...Array(5).fill('n'), ...Array(10).fill('y'), ...Array(15).fill('n')];
    expect(cohensKappa(a, b)).toBeCloseTo(0.4, 10);
    expect(cohensKappa(['a', 'b'], ['a', 'b'])).toBe(1);
  });

  it("Fleiss' kappa: 10 subjects, 14 raters, 5 categories → 0.210", () => {
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    expect(fleissKappa(table)).toBeCloseTo(0.21, 3);
    expect(
      fleissKappa([
        [2, 0],
        [1, 2],
      ]),
    ).toBeNull(); // unequal raters per item
  });

  it("Krippendorff's alpha: 4 coders, 12 units with missing values → nominal 0.743, interval 0.849", () => {
    // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": units as columns, coders A–D.
    const A = [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null];
    const B = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3];
    const C = [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null];
    const D = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null];
    const units = A.map((_, i) => [A[i], B[i], C[i], D[i]].filter((v): v is number => v !== null));
    expect(krippendorffAlpha(units, 'nominal')).toBeCloseTo(0.743, 3);
    expect(krippendorffAlpha(units, 'interval')).toBeCloseTo(0.849, 3);
  });
});
