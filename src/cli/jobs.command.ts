import type { DataSource } from 'typeorm';
import { operatorScope } from 'src/common/db/tenant-scope';
import { AdvisoryLock, tryXactLock, xactLock } from 'src/common/db/advisory-locks';
import type { AppConfig } from 'src/config/app-config';
import { openDatabase } from 'src/db/data-source';
import { parseCliArgs } from './cli-args';
import { CompileJobsRepository } from 'src/modules/memories/compile-jobs.repository';
import { JOB_LEASE_MINUTES, ORPHAN_MINUTES } from 'src/modules/ops/ops.service';

const err = (s: string) => process.stderr.write(s + '\n');
const out = (s: string) => process.stdout.write(s + '\n');

/**
 * `jobs reset-orphaned [--older-than-minutes N]`: compile jobs stuck in `running` (lease lapsed)
 * go back to `pending`, or to `failed` past COMPILE_JOB_MAX_ATTEMPTS.
 * `jobs requeue-failed [--id ID]…`: failed jobs go back to `pending` with a fresh attempt count.
 */
export async function jobsCommand(config: AppConfig, args: string[]): Promise<number> {
  const [action] = args;
  if (action !== 'reset-orphaned' && action !== 'requeue-failed') throw new Error(`unknown jobs action ${JSON.stringify(action ?? '')}: use reset-orphaned or requeue-failed`);
  const { values } = parseCliArgs(args.slice(1), { 'older-than-minutes': { type: 'string' }, id: { type: 'string', multiple: true } });
  const minutes = action === 'reset-orphaned' ? parseMinutes(values['older-than-minutes']) : 0;
  const ids = values.id ?? [];
  const db = await openDatabase(config);
  err(`database: ${db.engine} ${db.location}`);
  try {
    if (action === 'requeue-failed') {
      const jobs = await new CompileJobsRepository().requeueFailed(db.dataSource.manager, operatorScope(), ids.length > 0 ? ids : null);
      for (const job of jobs) err(`  requeued ${job.id} subject=${JSON.stringify(job.subject_id)} tenant=${JSON.stringify(job.tenant_id)}`);
      out(`requeued ${jobs.length} failed job(s)`);
      return 0;
    }
    const reset = await resetOrphanedJobs(db.dataSource, minutes, config.compileJobMaxAttempts, err);
    out(`reset ${reset} job(s) to pending`);
    return 0;
  } finally {
    await db.close();
  }
}

function parseMinutes(value: string | undefined): number {
  if (value === undefined) return ORPHAN_MINUTES;
  if (!/^\d{1,7}$/.test(value)) throw new Error(`--older-than-minutes needs a whole number of minutes, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The same reset the worker's cron does, for operators (for example right after an upgrade that
 * killed workers mid-job). Returns the number of jobs reset; reports each one through `log`.
 * A threshold under the lease also shortens the lease: `--older-than-minutes 0` is the operator
 * saying no worker is running (every process stopped or killed), so every running job is taken.
 * Under the workers' orphan lock: while a worker's reset runs, this waits for it, then resets
 * what is left.
 */
export async function resetOrphanedJobs(ds: DataSource, olderThanMinutes: number, maxAttempts: number, log: (line: string) => void): Promise<number> {
  log(`looking for compile jobs running for more than ${olderThanMinutes} minute(s) whose lease lapsed…`);
  const jobs = await ds.transaction(async (em) => {
    if (!(await tryXactLock(em, AdvisoryLock.CompileJobsOrphans))) {
      log('a worker is resetting orphaned jobs right now; waiting for it to finish…');
      await xactLock(em, AdvisoryLock.CompileJobsOrphans);
    }
    return new CompileJobsRepository().resetOrphaned(em, operatorScope(), olderThanMinutes, Math.min(JOB_LEASE_MINUTES, olderThanMinutes), maxAttempts);
  });
  for (const job of jobs) log(`  ${job.status === 'failed' ? 'failed' : 'reset'} ${job.id} subject=${JSON.stringify(job.subject_id)} tenant=${JSON.stringify(job.tenant_id)} attempts=${job.attempts}`);
  return jobs.filter((j) => j.status !== 'failed').length;
}
