import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { lockSnapshotName } from 'src/common/db/advisory-locks';
import { entityRow, rowOf } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import type { OperatorScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { SnapshotEntity, SnapshotRow } from 'src/modules/snapshots/snapshot.entity';

/** A snapshots row: every column of the entity. */
const SNAPSHOT_ROW = entityRow(SnapshotEntity, [
  'id', 'tenant_id', 'name', 'version', 'source_subject_id', 'snapshot_subject_id', 'metadata', 'episode_count', 'memory_count', 'created_at',
] as const);
const SNAPSHOT_COLUMNS = raw(SNAPSHOT_ROW.columns.join(', '));

/**
 * Snapshot metadata rows. The rows of a snapshot are copied by the rooms that own them (episodes,
 * memories and receipts, each through its bulk service: SnapshotsService orders the steps), and
 * stale snapshot subjects are deleted through SubjectLifecycleService.
 */
@Injectable()
export class SnapshotsRepository extends TenantScopedRepository {
  protected readonly table = 'snapshots';

  /**
   * Next version of a name. Versions are unique per name across tenants (the table's unique
   * key), so this looks at every tenant; a transaction-scoped advisory lock per name makes two
   * concurrent creations take consecutive versions instead of colliding.
   */
  async nextVersion(em: DbHandle, scope: OperatorScope, name: string): Promise<number> {
    await lockSnapshotName(em, name);
    const [row] = await this.scoped(em, scope.everyTenant(), rowOf<{ version: number }>({ version: true }), (t) =>
      sql`SELECT coalesce(max(version), 0)::int + 1 AS version FROM snapshots WHERE ${t()} AND name = ${name}`);
    return row.version;
  }

  async insert(em: DbHandle, scope: OperatorScope, s: Omit<SnapshotRow, 'id' | 'tenant_id' | 'created_at'>): Promise<SnapshotRow> {
    const [row] = await this.stamped(em, scope, SNAPSHOT_ROW, (tenantId) => sql`
      INSERT INTO snapshots (tenant_id, name, version, source_subject_id, snapshot_subject_id, metadata, episode_count, memory_count)
      VALUES (${tenantId}, ${s.name}, ${s.version}, ${s.source_subject_id}, ${s.snapshot_subject_id}, ${JSON.stringify(s.metadata)}::jsonb,
        ${s.episode_count}, ${s.memory_count})
      RETURNING ${SNAPSHOT_COLUMNS}`);
    return row;
  }

  async list(em: DbHandle, scope: OperatorScope): Promise<SnapshotRow[]> {
    return this.select(em, scope, SNAPSHOT_ROW, SnapshotEntity, 's', (qb) =>
      qb.orderBy('s.created_at', 'DESC').addOrderBy('s.name', 'ASC').addOrderBy('s.version', 'DESC'));
  }

  async findById(em: DbHandle, scope: OperatorScope, id: string): Promise<SnapshotRow | null> {
    const rows = await this.select(em, scope, SNAPSHOT_ROW, SnapshotEntity, 's', (qb) => qb.andWhere('s.id = :id', { id }));
    return rows[0] ?? null;
  }

  async findLatestByName(em: DbHandle, scope: OperatorScope, name: string): Promise<SnapshotRow | null> {
    const rows = await this.select(em, scope, SNAPSHOT_ROW, SnapshotEntity, 's', (qb) =>
      qb.andWhere('s.name = :name', { name }).orderBy('s.version', 'DESC').limit(1));
    return rows[0] ?? null;
  }
}
