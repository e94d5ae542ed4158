import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { notSnapshotSubject } from 'src/common/auth/reserved-subjects';
import { COUNT, rowOf } from 'src/common/db/row-shape';
import { sql } from 'src/common/db/sql';
import { TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';

/**
 * The subject listing: which subjects exist, read across the episodes and memories tables in one
 * statement (a page of subjects with counts would otherwise take a query per subject). A read
 * path across rooms like context's, and a documented exception to "only the owner names its
 * tables" (docs/architecture.md); nothing here writes.
 */
@Injectable()
export class SubjectsRepository extends TenantScopedRepository {
  protected readonly table = 'episodes and memories (subject listing)';

  /** Subjects with counts, ordered by subject id; `_snapshot/` subjects are hidden. */
  async list(em: DbHandle, scope: TenantScope, limit: number, offset: number): Promise<{ subjects: { subject_id: string; episode_count: number; memory_count: number }[]; total: number }> {
    const rows = await this.scoped(em, scope, rowOf<{ subject_id: string; episode_count: number; memory_count: number; total: number }>({ subject_id: true, episode_count: true, memory_count: true, total: true }), (t) => sql`
      WITH subjects AS (
        SELECT subject_id, count(*)::int AS episode_count FROM episodes WHERE ${t()} AND ${notSnapshotSubject()} GROUP BY subject_id
        UNION ALL
        SELECT subject_id, 0 FROM memories WHERE ${t()} AND ${notSnapshotSubject()} GROUP BY subject_id
      ), merged AS (
        SELECT subject_id, max(episode_count) AS episode_count FROM subjects GROUP BY subject_id
      )
      SELECT m.subject_id, m.episode_count,
        (SELECT count(*)::int FROM memories x WHERE ${t('x')} AND x.subject_id = m.subject_id) AS memory_count,
        count(*) OVER ()::int AS total
      FROM merged m
      ORDER BY m.subject_id
      LIMIT ${limit} OFFSET ${offset}`);
    if (rows.length > 0) return { subjects: rows.map(({ total: _t, ...s }) => s), total: rows[0].total };
    const count = await this.scoped(em, scope, COUNT, (t) => sql`
      SELECT count(*)::int AS n FROM (
        SELECT subject_id FROM episodes WHERE ${t()} AND ${notSnapshotSubject()}
        UNION SELECT subject_id FROM memories WHERE ${t()} AND ${notSnapshotSubject()}) s`);
    return { subjects: [], total: count[0].n };
  }
}
