import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { lockSnapshotName } from 'src/common/db/advisory-locks';
import { entityRow, rowOf } from 'src/common/db/row-shape';
import { raw, sql, SqlFragment } from 'src/common/db/sql';
import type { OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { SnapshotEntity, SnapshotRow } from 'src/modules/snapshots/snapshot.entity';

export interface SubjectCopy {
  episodes: number;
  memories: number;
  receipts: number;
}

/**
 * The receipts `source` holds, now held by `target` too (docs/governance.md "Receipts in exports
 * and snapshots"). A receipt's signature covers its whole body, its id, subject and tenant
 * included, so the copy keeps id and body byte for byte and only the row names the new holder
 * (migration 0019 keys rows by tenant, holder and id); `verify` stays `valid`. Insert only, as
 * receipts are immutable: a receipt the target already holds is left as it is.
 */
function copyReceipts(t: (alias?: string) => SqlFragment, source: string, target: string): SqlFragment {
  return sql`
        INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body, created_at)
        SELECT r.id, r.tenant_id, ${target}, r.mode, r.parent_receipt_id, r.body, r.created_at
        FROM receipts r WHERE ${t('r')} AND r.subject_id = ${source}
        ORDER BY r.id
        ON CONFLICT DO NOTHING
        RETURNING 1`;
}

/** A snapshots row: every column of the entity. */
const SNAPSHOT_ROW = entityRow(SnapshotEntity, [
  'id', 'tenant_id', 'name', 'version', 'source_subject_id', 'snapshot_subject_id', 'metadata', 'episode_count', 'memory_count', 'created_at',
] as const);
const SNAPSHOT_COLUMNS = raw(SNAPSHOT_ROW.columns.join(', '));
const COPY_COUNTS = rowOf<SubjectCopy>({ episodes: true, memories: true, receipts: true });

/**
 * Snapshot metadata rows, plus the bulk SQL of snapshot copy and restore: operator work over a
 * whole subject, set-based so the rows never pass through the service's memory. Copy and restore
 * insert into episodes and memories directly — the documented exception to "only the owner
 * names its tables" (docs/architecture.md); restore takes the target's SubjectLock first.
 * Deleting stale subjects goes through SubjectLifecycleService instead.
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

  /**
   * Copies the subject's episodes and memories under `target` in one statement: every row gets a
   * new id, `source_episode_ids` and `superseded_by` follow the new ids, and everything else
   * (tenant, timestamps, compiled state, embeddings) is kept exactly. Receipts are copied as
   * they are, id and body included (see copyReceipts).
   */
  async copySubject(em: DbHandle, scope: OperatorScope, source: string, target: string): Promise<SubjectCopy> {
    const [row] = await this.scoped(em, scope, COPY_COUNTS, (t) => sql`
      WITH emap AS MATERIALIZED (
        SELECT id AS old_id, gen_random_uuid() AS new_id FROM episodes WHERE ${t()} AND subject_id = ${source}
      ), mmap AS MATERIALIZED (
        SELECT id AS old_id, gen_random_uuid() AS new_id FROM memories WHERE ${t()} AND subject_id = ${source}
      ), copied_episodes AS (
        INSERT INTO episodes (id, tenant_id, subject_id, session_id, source, type, payload, metadata, provenance, content_text, created_at, last_compiled_at)
        SELECT m.new_id, e.tenant_id, ${target}, e.session_id, e.source, e.type, e.payload, e.metadata, e.provenance, e.content_text, e.created_at, e.last_compiled_at
        FROM episodes e JOIN emap m ON m.old_id = e.id
        WHERE ${t('e')}
        ORDER BY e.created_at, e.seq
        RETURNING 1
      ), copied_memories AS (
        INSERT INTO memories (id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to, source_episode_ids,
          metadata, status, attribute_key, superseded_by, embedding, needs_embedding, origin, created_at, updated_at, sensitivity_labels)
        SELECT mm.new_id, x.tenant_id, ${target}, x.kind, x.content, x.summary, x.confidence, x.valid_from, x.valid_to,
          ARRAY(SELECT coalesce(em.new_id, s.id) FROM unnest(x.source_episode_ids) WITH ORDINALITY AS s(id, ord)
                LEFT JOIN emap em ON em.old_id = s.id ORDER BY s.ord),
          x.metadata, x.status, x.attribute_key, coalesce(sup.new_id, x.superseded_by), x.embedding, x.needs_embedding, x.origin, x.created_at, x.updated_at,
          x.sensitivity_labels
        FROM memories x JOIN mmap mm ON mm.old_id = x.id LEFT JOIN mmap sup ON sup.old_id = x.superseded_by
        WHERE ${t('x')}
        RETURNING 1
      ), copied_receipts AS (
        ${copyReceipts(t, source, target)}
      )
      SELECT (SELECT count(*)::int FROM copied_episodes) AS episodes, (SELECT count(*)::int FROM copied_memories) AS memories,
        (SELECT count(*)::int FROM copied_receipts) AS receipts`);
    return row;
  }

  /**
   * Restores a snapshot subject into `target` in one statement, so a snapshot of any size costs
   * the service no memory (the rows never leave the database). Contract restore rules:
   * - every episode and memory gets a new id; `source_episode_ids` and `superseded_by` follow the
   *   new ids, a reference to something outside the snapshot is kept as it is;
   * - every timestamp moves by one shift, chosen so the newest episode's `created_at` is the
   *   transaction's `now()` (the newest memory's when there is no episode); relative offsets
   *   (order, validity windows, SLA timings) are kept. The shift is whole microseconds (no day
   *   or month part), so it is exact in every time zone;
   * - episode provenance records `restored_from_snapshot` and `original_episode_id`; memories
   *   have no provenance object, so their metadata records `restored_from_snapshot` and
   *   `original_memory_id` (overwriting the marks of an earlier restore).
   * Rows keep their own tenant (the snapshot's). Receipts come back unchanged (copyReceipts):
   * not shifted, not renumbered, so they still verify; one the target already holds is skipped.
   */
  async restoreSubject(em: DbHandle, scope: TenantScope, snapshotId: string, source: string, target: string): Promise<SubjectCopy> {
    const [row] = await this.scoped(em, scope, COPY_COUNTS, (t) => sql`
      WITH anchor AS MATERIALIZED (
        SELECT coalesce((SELECT max(created_at) FROM episodes WHERE ${t()} AND subject_id = ${source}),
                        (SELECT max(created_at) FROM memories WHERE ${t()} AND subject_id = ${source})) AS newest
      ), shift AS MATERIALIZED (
        SELECT coalesce(round(extract(epoch FROM now() - newest) * 1000000)::bigint, 0) * interval '1 microsecond' AS by FROM anchor
      ), emap AS MATERIALIZED (
        SELECT id AS old_id, gen_random_uuid() AS new_id FROM episodes WHERE ${t()} AND subject_id = ${source}
      ), mmap AS MATERIALIZED (
        SELECT id AS old_id, gen_random_uuid() AS new_id FROM memories WHERE ${t()} AND subject_id = ${source}
      ), restored_episodes AS (
        INSERT INTO episodes (id, tenant_id, subject_id, session_id, source, type, payload, metadata, provenance, content_text, created_at, last_compiled_at)
        SELECT m.new_id, e.tenant_id, ${target}, e.session_id, e.source, e.type, e.payload, e.metadata,
          coalesce(e.provenance, '{}'::jsonb) || jsonb_build_object('restored_from_snapshot', ${snapshotId}::text, 'original_episode_id', e.id),
          e.content_text, e.created_at + s.by, e.last_compiled_at + s.by
        FROM episodes e JOIN emap m ON m.old_id = e.id CROSS JOIN shift s
        WHERE ${t('e')}
        ORDER BY e.created_at, e.seq
        RETURNING 1
      ), restored_memories AS (
        INSERT INTO memories (id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to, source_episode_ids,
          metadata, status, attribute_key, superseded_by, embedding, needs_embedding, origin, created_at, updated_at, sensitivity_labels)
        SELECT mm.new_id, x.tenant_id, ${target}, x.kind, x.content, x.summary, x.confidence, x.valid_from + s.by, x.valid_to + s.by,
          ARRAY(SELECT coalesce(em.new_id, r.id) FROM unnest(x.source_episode_ids) WITH ORDINALITY AS r(id, ord)
                LEFT JOIN emap em ON em.old_id = r.id ORDER BY r.ord),
          coalesce(x.metadata, '{}'::jsonb) || jsonb_build_object('restored_from_snapshot', ${snapshotId}::text, 'original_memory_id', x.id),
          x.status, x.attribute_key, coalesce(sup.new_id, x.superseded_by), x.embedding, x.needs_embedding, x.origin,
          x.created_at + s.by, x.updated_at + s.by, x.sensitivity_labels
        FROM memories x JOIN mmap mm ON mm.old_id = x.id LEFT JOIN mmap sup ON sup.old_id = x.superseded_by CROSS JOIN shift s
        WHERE ${t('x')}
        ORDER BY x.created_at, x.id
        RETURNING 1
      ), restored_receipts AS (
        ${copyReceipts(t, source, target)}
      )
      SELECT (SELECT count(*)::int FROM restored_episodes) AS episodes, (SELECT count(*)::int FROM restored_memories) AS memories,
        (SELECT count(*)::int FROM restored_receipts) AS receipts`);
    return row;
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
