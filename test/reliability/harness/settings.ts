/**
 * Sizes of the reliability suites. CI runs the small version; RELIABILITY_LONG=1 the long one
 * (see docs/reliability.md). Counts can also be set one by one (RELIABILITY_CASES, …), and
 * RELIABILITY_SEED fixes the seed of every generator (printed by each suite).
 */
export const LONG = process.env.RELIABILITY_LONG === '1';

export const DEFAULT_SEED = 20240917;

export function seed(): number {
  const s = Number(process.env.RELIABILITY_SEED ?? DEFAULT_SEED);
  return Number.isFinite(s) ? Math.trunc(s) : DEFAULT_SEED;
}

function count(name: string, ci: number, long: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? (LONG ? long : ci) : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : ci;
}

export const sizes = {
  /** fast-check runs of the hostile-input property (per engine). */
  hostileCases: () => count('RELIABILITY_CASES', 400, 5000),
  /** SIGKILL trials of the crash harness (per engine). */
  crashTrials: () => count('RELIABILITY_TRIALS', 3, 100),
  /** Requests per phase of the replica suite. */
  replicaOps: () => count('RELIABILITY_REPLICA_OPS', 120, 2000),
  /** Outage cycles (stop/start of the private PostgreSQL). */
  outageCycles: () => count('RELIABILITY_OUTAGES', 1, 10),
  /** ~2 MB episodes on one subject in the large-subject suite (the issue's case is 70 of 1.5 MB). */
  largeEpisodes: () => count('RELIABILITY_LARGE_EPISODES', 24, 70),
  /** Small episodes on one subject in the large-subject suite. */
  manyEpisodes: () => count('RELIABILITY_MANY_EPISODES', 3000, 100_000),
  /** SIGTERM rounds of the graceful-shutdown suite. */
  shutdownRounds: () => count('RELIABILITY_SHUTDOWNS', 1, 20),
};

/** The harnesses' random choices use the benchmarks' seeded PRNG (mulberry32). */
export { prng as rng } from '../../support/prng';

export const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
export const between = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const sleep = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

/** Polls `probe` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(everyMs);
  }
}

/** `p`, or 'timeout' after `ms` (the timer is cleared, so nothing keeps the process alive). */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), ms)));
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}
