import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { COUNT, ID_ROW, NO_ROWS, rowOf } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import { SUBJECT_KEY_ROW, SubjectKey } from 'src/common/db/subject-key';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { columnList } from 'src/db/column-types';
import { MAX_HEALTH_HISTORY_LIMIT } from './dto/health-history.dto';
import type { ResolutionRow } from './dto/resolution.dto';
import { HEALTH_POINT_ROW, HealthPointRow } from './health-history.entity';
import { RESOLUTION_ROW } from './resolution.entity';
import type { HealthFactor, HealthState, ResolutionStatus } from './support.types';

export interface ResolutionDraft {
  id: string;
  subject_id: string;
  session_id: string;
  status: ResolutionStatus;
  resolution_summary: string | null;
  metadata: Record<string, unknown>;
}

export interface CachedHealth {
  state: HealthState;
  score: number;
}

export interface HealthToCache {
  subject_id: string;
  state: HealthState;
  score: number;
  factors: HealthFactor[];
}

/**
 * Points of health history kept per subject: an append deletes older ones in the same statement,
 * so one subject's history is at most this many rows (GET …/health/history reads at most that).
 */
export const HEALTH_HISTORY_KEPT = MAX_HEALTH_HISTORY_LIMIT;


const RESOLUTION_COLUMNS = raw(columnList(RESOLUTION_ROW.columns));
const CACHED_HEALTH_ROW = rowOf<CachedHealth>({ state: true, score: true });

/**
 * The Support module's tables: `resolutions` (one record per tenant, subject and session),
 * `health_cache` (the last computed health per tenant and subject), `health_refresh_marks` and
 * `health_history` (the bounded trend of each subject's health). The indexes treat a NULL tenant
 * as '' so single-tenant rows have one key too (migrations 0008, 0012, 0017, 0022).
 */
@Injectable()
export class SupportRepository extends TenantScopedRepository {
  protected readonly table = 'resolutions/health_cache/health_refresh_marks/health_history';

  /**
   * Creates or updates the record of (subject, session) in one statement, so two concurrent
   * upserts of a pair leave one row and both succeed (the second waits for the first's row and
   * updates it). The id and created_at are kept; the other fields take the values sent.
   * resolved_at: set to now when the status becomes `resolved`; kept when it already was (a
   * re-sent `resolved` does not move the resolution time; legacy rows without one keep
   * updated_at, the latest moment they can have been resolved); null for any other status.
   */
  async upsertResolution(em: DbHandle, scope: TenantScope, draft: ResolutionDraft): Promise<ResolutionRow> {
    const [row] = await this.stamped(em, scope, RESOLUTION_ROW, (tenantId) => sql`
      INSERT INTO resolutions AS r (id, tenant_id, subject_id, session_id, status, resolution_summary, resolved_at, metadata)
      VALUES (${draft.id}, ${tenantId}, ${draft.subject_id}, ${draft.session_id}, ${draft.status}, ${draft.resolution_summary},
        CASE WHEN ${draft.status}::varchar = 'resolved' THEN now() END, ${JSON.stringify(draft.metadata)}::jsonb)
      ON CONFLICT ((coalesce(tenant_id, '')), subject_id, session_id) DO UPDATE SET
        status = EXCLUDED.status,
        resolution_summary = EXCLUDED.resolution_summary,
        metadata = EXCLUDED.metadata,
        resolved_at = CASE
          WHEN EXCLUDED.status <> 'resolved' THEN NULL
          WHEN r.status = 'resolved' THEN coalesce(r.resolved_at, r.updated_at)
          ELSE now() END,
        updated_at = now()
      RETURNING ${RESOLUTION_COLUMNS}`);
    return row;
  }

  /** Newest update first (ties: newest record first, then id), optionally of one status. */
  async listResolutions(em: DbHandle, scope: TenantScope, subjectId: string, status?: ResolutionStatus): Promise<ResolutionRow[]> {
    return this.scoped(em, scope, RESOLUTION_ROW, (t) => sql`
      SELECT ${RESOLUTION_COLUMNS} FROM resolutions
      WHERE ${t()} AND subject_id = ${subjectId} ${status ? sql`AND status = ${status}` : raw('')}
      ORDER BY updated_at DESC, created_at DESC, id`);
  }

  /**
   * The cached health of a subject, row-locked until the transaction ends, or null when none is
   * cached. Holding the lock while computing and comparing is what makes each state change
   * emit its event once: a concurrent computation waits here and then sees the new state.
   */
  async lockCachedHealth(em: DbHandle, scope: TenantScope, subjectId: string): Promise<CachedHealth | null> {
    const rows = await this.scoped(em, scope, CACHED_HEALTH_ROW, (t) => sql`
      SELECT state, score FROM health_cache
      WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${subjectId}
      FOR UPDATE`);
    return rows[0] ?? null;
  }

  /**
   * Caches the first computed health of a subject. False when a concurrent computation cached
   * one first (ON CONFLICT waits for it to commit): the caller then locks that row and
   * computes again.
   */
  async insertCachedHealth(em: DbHandle, scope: TenantScope, health: HealthToCache): Promise<boolean> {
    const rows = await this.stamped(em, scope, ID_ROW, (tenantId) => sql`
      INSERT INTO health_cache (tenant_id, subject_id, state, score, factors)
      VALUES (${tenantId}, ${health.subject_id}, ${health.state}, ${health.score}, ${JSON.stringify(health.factors)}::jsonb)
      ON CONFLICT ((coalesce(tenant_id, '')), subject_id) DO NOTHING
      RETURNING id`);
    return rows.length > 0;
  }

  /** Updates the row locked by `lockCachedHealth`. */
  async updateCachedHealth(em: DbHandle, scope: TenantScope, health: HealthToCache): Promise<void> {
    await this.scoped(em, scope, NO_ROWS, (t) => sql`
      UPDATE health_cache SET state = ${health.state}, score = ${health.score}, factors = ${JSON.stringify(health.factors)}::jsonb, updated_at = now()
      WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${health.subject_id}`);
  }

  async deleteSubject(em: DbHandle, scope: AnyScope, subjectId: string): Promise<{ resolutions: number; healthCache: number; healthHistory: number }> {
    // Rows are locked in the order every health path locks them (a resolution upsert: its row,
    // then the refresh mark, the cache row, the history): the mark taken after the cache row
    // deadlocked against a concurrent recomputation holding the mark and waiting for the cache.
    const [resolutions] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH gone AS (DELETE FROM resolutions WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    await this.takeRefreshMark(em, scope, subjectId);
    const [healthCache] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH gone AS (DELETE FROM health_cache WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    const [history] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH gone AS (DELETE FROM health_history WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    return { resolutions: resolutions.n, healthCache: healthCache.n, healthHistory: history.n };
  }

  /**
   * Appends a point to the subject's health history unless its last point has the same score
   * and state, and deletes the points beyond the newest HEALTH_HISTORY_KEPT, in one statement.
   * Called under the health cache row lock (SupportService.recomputeHealth), so appends of one
   * subject are serialised and "the last point" is not raced. The DELETE reads the snapshot from
   * before the INSERT, so it keeps KEPT - 1 older points beside the new one.
   */
  async appendHealthPoint(em: DbHandle, scope: TenantScope, subjectId: string, point: { score: number; state: HealthState; at: Date }): Promise<void> {
    await this.scoped(em, scope, NO_ROWS, (t) => sql`
      WITH last AS (
        SELECT score, state FROM health_history
        WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${subjectId}
        ORDER BY row_id DESC LIMIT 1
      ), added AS (
        INSERT INTO health_history (tenant_id, subject_id, score, state, recorded_at)
        SELECT ${scope.insertValue}::varchar, ${subjectId}::varchar, ${point.score}::int, ${point.state}::varchar, ${point.at.toISOString()}::timestamptz
        WHERE NOT EXISTS (SELECT 1 FROM last WHERE last.score = ${point.score}::int AND last.state = ${point.state}::varchar)
        RETURNING 1
      )
      DELETE FROM health_history
      WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${subjectId} AND EXISTS (SELECT 1 FROM added)
        AND row_id <= (
          SELECT row_id FROM health_history
          WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${subjectId}
          ORDER BY row_id DESC OFFSET ${HEALTH_HISTORY_KEPT - 1} LIMIT 1)`);
  }

  /** The newest `limit` points of the subject's health history, oldest first. */
  async healthHistory(em: DbHandle, scope: TenantScope, subjectId: string, limit: number): Promise<HealthPointRow[]> {
    return this.scoped(em, scope, HEALTH_POINT_ROW, (t) => sql`
      SELECT score, state, recorded_at FROM (
        SELECT row_id, score, state, recorded_at FROM health_history
        WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${subjectId}
        ORDER BY row_id DESC LIMIT ${limit}) newest
      ORDER BY row_id`);
  }

  /**
   * Deletes the subject's health refresh mark (migration 0017), first thing in a recomputation:
   * an ingestion still holding the mark makes this wait for its commit, so the inputs read next
   * include its episodes. Returns whether there was one.
   */
  async takeRefreshMark(em: DbHandle, scope: AnyScope, subjectId: string): Promise<boolean> {
    const [taken] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH taken AS (DELETE FROM health_refresh_marks WHERE ${t()} AND ${scope.keyOwner()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM taken`);
    return taken.n > 0;
  }

  /** Marks older than `olderThanMs`, oldest first: recomputations nobody ran (the process died). */
  async staleRefreshMarks(em: DbHandle, operator: OperatorScope, olderThanMs: number, limit: number): Promise<SubjectKey[]> {
    return this.scoped(em, operator, SUBJECT_KEY_ROW, (t) => sql`
      SELECT tenant_id, subject_id FROM health_refresh_marks
      WHERE ${t()} AND marked_at <= now() - make_interval(secs => ${olderThanMs / 1000})
      ORDER BY marked_at
      LIMIT ${limit}`);
  }
}
