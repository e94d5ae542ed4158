/** Latency samples in milliseconds and their summary. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  throughput_per_s: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

/** Rounded to two decimals, as benchmarks report their figures. */
export const round2 = (x: number): number => Math.round(x * 100) / 100;

export function summarise(samples: number[], wallMs: number, unitsPerSample = 1): Summary {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round2(percentile(s, 50)),
    p95: round2(percentile(s, 95)),
    p99: round2(percentile(s, 99)),
    mean: round2(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)),
    throughput_per_s: round2((s.length * unitsPerSample) / (wallMs / 1000)),
  };
}

export { prng } from '../../test/support/prng';
