import type { EntityManager } from 'typeorm';
import type { AppConfig } from 'src/config/app-config';
import { openDatabase } from 'src/db/data-source';
import { CompileJobsRepository } from 'src/modules/memories/compile-jobs.repository';
import { ORPHAN_MINUTES } from 'src/modules/ops/ops.service';

const err = (s: string) => process.stderr.write(s + '\n');
const out = (s: string) => process.stdout.write(s + '\n');

/** `jobs reset-orphaned [--older-than-minutes N]`: compile jobs stuck in `running` go back to `pending`. */
export async function jobsCommand(config: AppConfig, args: string[]): Promise<number> {
  const [action] = args;
  if (action !== 'reset-orphaned') throw new Error(`unknown jobs action ${JSON.stringify(action ?? '')}: use reset-orphaned`);
  const minutes = parseMinutes(args);
  const db = await openDatabase(config);
  err(`database: ${db.engine} ${db.location}`);
  try {
    const reset = await resetOrphanedJobs(db.dataSource.manager, minutes, err);
    out(`reset ${reset} job(s) to pending`);
    return 0;
  } finally {
    await db.close();
  }
}

function parseMinutes(args: string[]): number {
  const i = args.indexOf('--older-than-minutes');
  if (i === -1) return ORPHAN_MINUTES;
  const value = args[i + 1] ?? '';
  if (!/^\d{1,7}$/.test(value)) throw new Error(`--older-than-minutes needs a whole number of minutes, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The same reset the worker's cron does, for operators (for example right after an upgrade that
 * killed workers mid-job). Returns the number of jobs reset; reports each one through `log`.
 */
export async function resetOrphanedJobs(em: EntityManager, olderThanMinutes: number, log: (line: string) => void): Promise<number> {
  log(`looking for compile jobs running for more than ${olderThanMinutes} minute(s)…`);
  const jobs = await new CompileJobsRepository().resetOrphaned(em, olderThanMinutes);
  for (const job of jobs) log(`  reset ${job.id} subject=${JSON.stringify(job.subject_id)} tenant=${JSON.stringify(job.tenant_id)} attempts=${job.attempts}`);
  return jobs.length;
}
