/** Order statistics of one metric's samples. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly p25: number;
  readonly p75: number;
  readonly p99: number;
  readonly mean: number;
}

/** Linear interpolation between closest ranks (the R-7 / NumPy default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? Number.NaN;
  return a + (b - a) * (pos - lo);
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((x, y) => x - y);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    p99: quantile(sorted, 0.99),
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** A single observation as a summary (n = 1, no spread). */
export function single(value: number): Summary {
  return summarize([value]);
}
