import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DbHandle, managerOf } from './db-handle';

/**
 * Every PostgreSQL advisory lock the service takes, in one place (one 64-bit key space shared
 * by all processes on a database). Nothing else calls `pg_*advisory*`.
 *
 * Cluster-wide tasks are named here: one process runs each at a time. Their key is
 * `hashtextextended('memory-service:<name>', 0)`, except the migration lock, whose constant
 * predates the registry and stays: two versions' init containers may migrate during one
 * rollout, so its key must never change. (Before this registry the rate-limit cleanup used the
 * constant 720009 and the snapshot cleanup `hashtext('snapshots.cleanup')`; during a rolling
 * upgrade an old and a new replica may each run those two at once, which is harmless: both are
 * idempotent deletes of expired rows.)
 */
export enum AdvisoryLock {
  /** Schema migrations, a session lock held for the whole run (`migrate`, start-up). */
  Migrations = 'migrations',
  /** Compile jobs whose worker died go back to `pending` (cron and `jobs reset-orphaned`). */
  CompileJobsOrphans = 'compile-jobs-orphans',
  /** Finished compile jobs past COMPILE_JOB_RETENTION_HOURS are deleted. */
  CompileJobsRetention = 'compile-jobs-retention',
  /** Delivered and dead webhook events past their retention are pruned (cron and `webhooks prune`). */
  WebhookRetention = 'webhook-retention',
  /** Memories stored without an embedding are embedded (background task and `embeddings backfill`). */
  EmbeddingBackfill = 'embedding-backfill',
  /** Stale `live_` subjects are deleted (hourly, with snapshots enabled). */
  SnapshotsCleanup = 'snapshots-cleanup',
  /** Expired rate-limit windows are deleted. */
  RateLimitCleanup = 'rate-limit-cleanup',
  /** Tables past autovacuum's thresholds are analysed, on a server whose autovacuum is off (statistics-upkeep.ts). */
  TableStatistics = 'table-statistics',
}

/** The migration lock's key since 0.1: see above, never change it. */
const MIGRATIONS_KEY = '741852963';

/** The key of a named lock as SQL (the names are the enum's fixed identifiers, safe to inline). */
export function advisoryLockKeySql(lock: AdvisoryLock): string {
  return lock === AdvisoryLock.Migrations ? MIGRATIONS_KEY : `hashtextextended('memory-service:${lock}', 0)`;
}

/**
 * The per-(tenant, subject) compile lock: a hash of the JSON array
 * `["compile-subject", tenant, subject]`. JSON quotes and escapes each part, so no two pairs
 * share the text that is hashed; the former `tenant || '/' || subject` made `a/b`+`c` and
 * `a`+`b/c` one lock. A NULL tenant (single-tenant mode, legacy rows) is JSON null, apart from
 * any tenant id. Frozen: replicas of two versions must take the same key for the same subject
 * (docs/scaling.md). $1 = tenant id or NULL, $2 = subject id.
 */
export const SUBJECT_LOCK_KEY_SQL = `hashtextextended(json_build_array('compile-subject', $1::text, $2::text)::text, 0)`;

/**
 * The per-name snapshot version lock (versions are unique per name across tenants). Frozen for
 * the same reason: two versions' replicas creating one name at once must wait on each other.
 * $1 = snapshot name.
 */
const SNAPSHOT_NAME_LOCK_KEY_SQL = `hashtext('snapshots.version:' || $1)`;

/**
 * Takes a named lock until `em`'s transaction ends; false when another process holds it. The
 * lock is transaction-scoped, so it is released on commit on whichever pooled connection took it.
 */
export async function tryXactLock(em: EntityManager, lock: AdvisoryLock): Promise<boolean> {
  const [row] = await em.query(`SELECT pg_try_advisory_xact_lock(${advisoryLockKeySql(lock)}) AS locked`);
  return row.locked === true;
}

/** Waits for a named lock, held until `em`'s transaction ends (an operator command that must run). */
export async function xactLock(em: EntityManager, lock: AdvisoryLock): Promise<void> {
  await em.query(`SELECT pg_advisory_xact_lock(${advisoryLockKeySql(lock)})`);
}

/**
 * One cluster-wide run of a maintenance step: `fn` runs in a transaction of its own holding
 * `lock`; null (and nothing done) while another process holds it.
 */
export function tryWithLock<T>(ds: DataSource, lock: AdvisoryLock, fn: (em: EntityManager) => Promise<T>): Promise<T | null> {
  return ds.transaction(async (em) => ((await tryXactLock(em, lock)) ? fn(em) : null));
}

/**
 * A session lock on a connection the caller holds (a run longer than one transaction: the
 * migrations, the embedding backfill while it calls the provider). `wait` blocks until it is
 * free; otherwise `fn` does not run and the result is null when another session holds it.
 */
export async function withSessionLock<T>(runner: QueryRunner, lock: AdvisoryLock, wait: boolean, fn: () => Promise<T>): Promise<T | null> {
  const key = advisoryLockKeySql(lock);
  if (wait) await runner.query(`SELECT pg_advisory_lock(${key})`);
  else if ((await runner.query(`SELECT pg_try_advisory_lock(${key}) AS locked`))[0].locked !== true) return null;
  try {
    return await fn();
  } finally {
    await runner.query(`SELECT pg_advisory_unlock(${key})`);
  }
}

/** Serialises compiles (and deletion) of one subject across processes until the transaction ends. */
export async function lockSubject(db: DbHandle, tenantId: string | null, subjectId: string): Promise<void> {
  await managerOf(db).query(`SELECT pg_advisory_xact_lock(${SUBJECT_LOCK_KEY_SQL})`, [tenantId, subjectId]);
}

/** Serialises version allocation of one snapshot name until the transaction ends. */
export async function lockSnapshotName(db: DbHandle, name: string): Promise<void> {
  await managerOf(db).query(`SELECT pg_advisory_xact_lock(${SNAPSHOT_NAME_LOCK_KEY_SQL})`, [name]);
}
