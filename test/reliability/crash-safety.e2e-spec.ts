import { runCrashTrials } from './harness/crash';
import { runEngine } from './harness/service-process';
import { seed, sizes } from './harness/settings';

/**
 * SIGKILL at random moments under mixed load, on the built service, on this run's engine (a
 * fresh PostgreSQL database, or a PGlite data directory). See harness/crash.ts for the trial and
 * harness/invariants.ts for exactly what is checked. RELIABILITY_TRIALS / RELIABILITY_LONG size it.
 */
describe('crash safety (SIGKILL, built service)', () => {
  const trials = sizes.crashTrials();
  it(
    `keeps every acknowledged write, writes nothing half, and recovers jobs and events (${trials} trials)`,
    async () => {
      const s = seed();
      const report = await runCrashTrials({ engine: runEngine(), seed: s, trials, log: (l) => process.stdout.write(`${l}\n`) });
      process.stdout.write(`crash-safety: ${JSON.stringify({ ...report, problems: report.problems.length })}\n`);
      expect(report.problems).toEqual([]);
      expect(report.trials).toBe(trials);
    },
    trials * 120_000 + 60_000,
  );
});
