import { checkConverged, checkInvariants } from './invariants';
import { Ledger } from './ledger';
import { baseEnv, Engine, provisionDb, runCli, ServiceProcess, startService } from './service-process';
import { between, eventually, rng, sleep } from './settings';
import { WebhookReceiver } from './webhook-receiver';
import { clientLoop } from './workload';

export interface CrashReport {
  engine: Engine;
  seed: number;
  trials: number;
  ops: Record<string, number>;
  killAfterMs: number[];
  restartMs: number[];
  convergeMs: number[];
  events: number;
  redeliveries: number;
  problems: string[];
}

/**
 * SIGKILL trials against the built service. Each trial: start (or restart) the service on the
 * same database, run LOOPS client loops of mixed writes, SIGKILL at a random moment, then check
 * the database as the crash left it (checkInvariants), reset orphaned jobs with the operator CLI,
 * restart, and wait until every job has run and every event is delivered (checkConverged).
 *
 * One shortcut: a webhook event claimed by the killed process stays leased for WEBHOOK_TIMEOUT
 * + 30 s before another claim may take it; the harness expires those leases directly in the
 * database after the kill (the lease expiry itself is covered by test/e2e/webhooks).
 */
export async function runCrashTrials(opts: { engine: Engine; seed: number; trials: number; loops?: number; log?: (s: string) => void }): Promise<CrashReport> {
  const log = opts.log ?? (() => undefined);
  const r = rng(opts.seed);
  const ledger = new Ledger();
  const receiver = new WebhookReceiver();
  const hook = await receiver.start();
  const db = await provisionDb(opts.engine);
  const env = baseEnv({ ...db.env, SERVICE_WEBHOOK_URL: hook, SERVICE_WEBHOOK_TIMEOUT: '2', SERVICE_LOG_LEVEL: 'warn' });
  const report: CrashReport = { engine: opts.engine, seed: opts.seed, trials: 0, ops: {}, killAfterMs: [], restartMs: [], convergeMs: [], events: 0, redeliveries: 0, problems: [] };
  const loops = opts.loops ?? 4;
  let svc: ServiceProcess | null = null;
  try {
    let t0 = Date.now();
    svc = await startService(env);
    report.restartMs.push(Date.now() - t0);
    for (let trial = 1; trial <= opts.trials; trial++) {
      let killed = false;
      const target = { base: () => svc!.base, headers: () => ({}) };
      const running = Array.from({ length: loops }, (_, i) =>
        clientLoop({ ledger, target, r: rng(opts.seed * 1000 + trial * 10 + i), subjects: [`c${i}-a`, `c${i}-b`, `c${i}/c`], tenant: null, stop: () => killed, maxOps: 100_000 }),
      );
      const killAfter = between(r, 200, 2500);
      report.killAfterMs.push(killAfter);
      await sleep(killAfter);
      svc.kill('SIGKILL');
      killed = true;
      await svc.exited;
      await Promise.all(running);
      ledger.settle();

      // The database exactly as the crash left it.
      const crashProblems = await checkInvariants(db.query, ledger);
      for (const p of crashProblems) report.problems.push(`trial ${trial} after SIGKILL: ${p}`);
      await db.query(`UPDATE webhook_events SET locked_until = NULL WHERE status = 'pending'`);
      await db.release();

      const reset = await runCli(env, ['jobs', 'reset-orphaned', '--older-than-minutes', '0']);
      if (reset.code !== 0) report.problems.push(`trial ${trial}: jobs reset-orphaned exited ${reset.code}: ${reset.out.slice(-500)}`);

      t0 = Date.now();
      svc = await startService(env);
      report.restartMs.push(Date.now() - t0);
      t0 = Date.now();
      const base = svc.base;
      try {
        await eventually(`trial ${trial}: jobs and webhooks drained`, 90_000, async () => {
          const [pending, running, stats] = (await Promise.all([
            fetch(`${base}/admin/jobs?status=pending&limit=1`).then((x) => x.json()),
            fetch(`${base}/admin/jobs?status=running&limit=1`).then((x) => x.json()),
            fetch(`${base}/admin/webhooks/stats`).then((x) => x.json()),
          ])) as [{ jobs: unknown[] }, { jobs: unknown[] }, { pending: number }];
          return pending.jobs.length === 0 && running.jobs.length === 0 && stats.pending === 0;
        }, 100);
      } catch (err) {
        report.problems.push((err as Error).message);
      }
      report.convergeMs.push(Date.now() - t0);
      report.trials = trial;
      log(`crash trial ${trial}/${opts.trials} (${opts.engine}): killed after ${killAfter} ms, ${ledger.ops.length} ops so far, problems ${report.problems.length}`);
    }
    // Final: stop cleanly and check everything once more, convergence included.
    await svc.stop();
    svc = null;
    report.problems.push(...(await checkInvariants(db.query, ledger)).map((p) => `final: ${p}`));
    report.problems.push(...(await checkConverged(db.query, ledger, new Set(receiver.events.keys()))).map((p) => `final: ${p}`));
    report.ops = ledger.counts();
    report.events = receiver.events.size;
    report.redeliveries = receiver.redeliveries;
    return report;
  } finally {
    if (svc) await svc.stop(5000);
    await db.drop().catch(() => undefined);
    await receiver.stop();
  }
}
