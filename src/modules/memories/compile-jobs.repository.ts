import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { COUNT, entityRow, ID_ROW, rowOf } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { columnList } from 'src/db/column-types';
import { COMPILE_JOB_ROW, CompileJobEntity, JOB_ROW } from 'src/modules/memories/compile-job.entity';
import type { CompileJobRow, CompileJobStatus, JobRow } from 'src/modules/memories/compile-job.entity';

const COLUMNS = raw(columnList(COMPILE_JOB_ROW.columns));
const JOB_COLUMNS = raw(columnList(JOB_ROW.columns));
const JOB_STATUS_ROW = entityRow(CompileJobEntity, ['id', 'status'] as const);
type JobStatusRow = typeof JOB_STATUS_ROW.row;
const STATUS_COUNT_ROW = rowOf<{ status: CompileJobStatus; n: number }>({ status: true, n: true });

/**
 * compile_jobs rows. Request paths use the caller's scope; the worker, the crons and the
 * operator CLI work across tenants (an OperatorScope) because a job carries its own tenant.
 */
@Injectable()
export class CompileJobsRepository extends TenantScopedRepository {
  protected readonly table = 'compile_jobs';

  async insert(em: DbHandle, scope: TenantScope, subjectId: string): Promise<CompileJobRow> {
    const [row] = await this.stamped(em, scope, COMPILE_JOB_ROW, (tenantId) => sql`
      INSERT INTO compile_jobs (tenant_id, subject_id, status) VALUES (${tenantId}, ${subjectId}, 'pending')
      RETURNING ${COLUMNS}`);
    return row;
  }

  async findById(em: DbHandle, scope: TenantScope, id: string): Promise<CompileJobRow | null> {
    const rows = await this.scoped(em, scope, COMPILE_JOB_ROW, (t) => sql`SELECT ${COLUMNS} FROM compile_jobs WHERE ${t()} AND id = ${id}`);
    return rows[0] ?? null;
  }

  /** Takes up to `limit` pending jobs, oldest first; SKIP LOCKED lets every process claim concurrently. */
  async claim(em: DbHandle, scope: OperatorScope, limit: number): Promise<CompileJobRow[]> {
    return this.scoped(em, scope, COMPILE_JOB_ROW, (t) => sql`
      -- MATERIALIZED: the LIMIT picks ids once. As a plain IN (subquery) the planner may rescan
      -- it per row (it does under row-level security), and SKIP LOCKED then claims a new job
      -- on every rescan: more than limit rows, the extra ones left running unseen.
      WITH picked AS MATERIALIZED (
        SELECT id FROM compile_jobs WHERE ${t()} AND status = 'pending'
        ORDER BY created_at
        FOR UPDATE SKIP LOCKED
        LIMIT ${limit}
      ), claimed AS (
        UPDATE compile_jobs SET status = 'running', started_at = now(), attempts = attempts + 1, updated_at = now()
        WHERE id IN (SELECT id FROM picked)
        RETURNING ${COLUMNS})
      SELECT * FROM claimed ORDER BY created_at`);
  }

  /** False when the job is no longer this run's (reset as orphaned and retaken, or deleted). */
  /** `memoryIds`: the first ones the job stored (the status echoes those); `created`: how many it stored. */
  async complete(em: DbHandle, scope: OperatorScope, job: CompileJobRow, memoryIds: string[], created: number): Promise<boolean> {
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      WITH done AS (
        UPDATE compile_jobs SET status = 'completed', memories_created = ${created}, memory_ids = ${memoryIds}::uuid[],
          error = NULL, completed_at = now(), updated_at = now()
        WHERE ${t()} AND id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}
        RETURNING id)
      SELECT id FROM done`);
    return rows.length > 0;
  }

  async fail(em: DbHandle, scope: OperatorScope, job: CompileJobRow, error: string): Promise<boolean> {
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      WITH done AS (
        UPDATE compile_jobs SET status = 'failed', error = ${error}, completed_at = now(), updated_at = now()
        WHERE ${t()} AND id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}
        RETURNING id)
      SELECT id FROM done`);
    return rows.length > 0;
  }

  /**
   * Renews the lease of a job this run holds (updated_at is its heartbeat); false when the job
   * is no longer this run's.
   */
  async renewLease(em: DbHandle, scope: OperatorScope, job: CompileJobRow): Promise<boolean> {
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      WITH renewed AS (
        UPDATE compile_jobs SET updated_at = now()
        WHERE ${t()} AND id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}
        RETURNING id)
      SELECT id FROM renewed`);
    return rows.length > 0;
  }

  /**
   * Contract: a job `running` for longer than the threshold goes back to `pending`, its claim
   * time cleared — once its lease has lapsed too (a live worker renews it, so a long compile is
   * never taken from under it). A job whose worker stopped `maxAttempts` times (a poison job
   * that kills its process) becomes `failed` instead, with the reason as its error; operators
   * requeue it (`jobs requeue-failed`).
   */
  async resetOrphaned(em: DbHandle, scope: OperatorScope, olderThanMinutes: number, leaseMinutes: number, maxAttempts: number): Promise<CompileJobRow[]> {
    return this.scoped(em, scope, COMPILE_JOB_ROW, (t) => sql`
      WITH reset AS (
        UPDATE compile_jobs SET
          status = CASE WHEN attempts >= ${maxAttempts} THEN 'failed' ELSE 'pending' END,
          started_at = CASE WHEN attempts >= ${maxAttempts} THEN started_at END,
          completed_at = CASE WHEN attempts >= ${maxAttempts} THEN now() END,
          error = 'the worker running this job stopped before it finished (attempt ' || attempts || ' of ' || ${maxAttempts}::int || ')',
          updated_at = now()
        WHERE ${t()} AND status = 'running' AND started_at < now() - make_interval(mins => ${olderThanMinutes})
          AND updated_at < now() - make_interval(secs => ${leaseMinutes * 60})
        RETURNING ${COLUMNS})
      SELECT * FROM reset ORDER BY created_at`);
  }

  /** Failed jobs (all, or those with these ids) back to `pending` with a fresh attempt count. */
  async requeueFailed(em: DbHandle, scope: OperatorScope, ids: string[] | null): Promise<CompileJobRow[]> {
    return this.scoped(em, scope, COMPILE_JOB_ROW, (t) => sql`
      WITH requeued AS (
        UPDATE compile_jobs SET status = 'pending', attempts = 0, started_at = NULL, completed_at = NULL, updated_at = now()
        WHERE ${t()} AND status = 'failed' ${ids === null ? raw('') : sql`AND id = ANY(${ids}::uuid[])`}
        RETURNING ${COLUMNS})
      SELECT * FROM requeued ORDER BY created_at`);
  }

  /** One job's id and status, any tenant the scope allows (the single requeue tells 404 from 409 with it). */
  async findStatus(em: DbHandle, scope: OperatorScope, id: string): Promise<JobStatusRow | null> {
    const rows = await this.scoped(em, scope, JOB_STATUS_ROW, (t) => sql`SELECT id, status FROM compile_jobs WHERE ${t()} AND id = ${id}`);
    return rows[0] ?? null;
  }

  /** Completed and failed jobs that finished more than `olderThanHours` ago. */
  async deleteFinished(em: DbHandle, scope: OperatorScope, olderThanHours: number): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH deleted AS (
        DELETE FROM compile_jobs
        WHERE ${t()} AND status IN ('completed', 'failed') AND coalesce(completed_at, updated_at) < now() - make_interval(secs => ${olderThanHours * 3600})
        RETURNING 1)
      SELECT count(*)::int AS n FROM deleted`);
    return rows[0].n;
  }

  async deleteSubject(em: DbHandle, scope: AnyScope, subjectId: string): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH deleted AS (DELETE FROM compile_jobs WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM deleted`);
    return rows[0].n;
  }

  /** Jobs per status, every tenant's (the /metrics scrape). */
  async countsByStatus(em: DbHandle, scope: OperatorScope): Promise<Record<string, number>> {
    const rows = await this.scoped(em, scope, STATUS_COUNT_ROW, (t) => sql`SELECT status, count(*)::int AS n FROM compile_jobs WHERE ${t()} GROUP BY status`);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** Running jobs started over `minutes` ago whose lease lapsed, every tenant's (readiness). */
  async countStuck(em: DbHandle, scope: OperatorScope, minutes: number, leaseMinutes: number): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) =>
      sql`SELECT count(*)::int AS n FROM compile_jobs WHERE ${t()} AND status = 'running' AND started_at < now() - make_interval(mins => ${minutes})
        AND updated_at < now() - make_interval(secs => ${leaseMinutes * 60})`,
    );
    return rows[0].n;
  }

  /** The operator's job listing (GET /admin/jobs), newest first. */
  async list(em: DbHandle, scope: OperatorScope, filter: { status?: CompileJobStatus; subjectId?: string; limit: number; offset: number }): Promise<JobRow[]> {
    return this.scoped(em, scope, JOB_ROW, (t) => sql`
      SELECT ${JOB_COLUMNS}
      FROM compile_jobs
      WHERE ${t()}
        ${filter.status ? sql`AND status = ${filter.status}` : raw('')}
        ${filter.subjectId !== undefined ? sql`AND subject_id = ${filter.subjectId}` : raw('')}
      ORDER BY created_at DESC, id DESC
      LIMIT ${filter.limit} OFFSET ${filter.offset}`);
  }

  /** Contract "Tenant isolation" rule 4 (the operator's tenant audit): jobs lacking a tenant_id. */
  async countNullTenant(em: DbHandle, scope: OperatorScope): Promise<number> {
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`SELECT count(*)::int AS n FROM compile_jobs WHERE ${t()} AND tenant_id IS NULL`);
    return row.n;
  }
}
