import type { SnapshotRow } from 'src/modules/snapshots/snapshot.entity';
import { SNAPSHOT_SUBJECT_PREFIX } from 'src/common/auth/reserved-subjects';
import { IsOptional, IsString, IsUUID, Matches, NotContains } from 'class-validator';
import { Length } from 'src/common/http/text-length';

export class SnapshotDto {
  id: string;
  name: string;
  version: number;
  source_subject_id: string;
  /** The hidden subject holding the copies: `_snapshot/{name}/v{version}`. */
  snapshot_subject_id: string;
  tenant_id: string | null;
  metadata: Record<string, unknown>;
  episode_count: number;
  memory_count: number;
  created_at: Date;
}

export function toSnapshotDto(row: SnapshotRow): SnapshotDto {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    source_subject_id: row.source_subject_id,
    snapshot_subject_id: row.snapshot_subject_id,
    tenant_id: row.tenant_id,
    metadata: row.metadata ?? {},
    episode_count: row.episode_count,
    memory_count: row.memory_count,
    created_at: row.created_at,
  };
}

export class SnapshotListDto {
  /** Newest first. */
  snapshots: SnapshotDto[];
}

export class TenantFilterQueryDto {
  /** Only this tenant's snapshots (and, for cleanup, subjects); without it every tenant's. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}

export class SnapshotIdParamDto {
  @IsUUID()
  snapshot_id: string;
}

/** Snapshot subjects are never a restore target: that would change a snapshot. */
const NOT_A_SNAPSHOT_SUBJECT = new RegExp(`^(?!${SNAPSHOT_SUBJECT_PREFIX.replace(/[/\\^$.*+?()[\]{}|]/g, '\\$&')})`);

export class RestoreSnapshotDto {
  /** Subject that receives copies of the snapshot's episodes and memories (added to what it has). */
  @IsString()
  @Length(1, 256)
  @Matches(NOT_A_SNAPSHOT_SUBJECT, { message: `target_subject_id must not be a ${SNAPSHOT_SUBJECT_PREFIX} subject` })
  target_subject_id: string;
}

export class RestoreByNameDto extends RestoreSnapshotDto {
  /** The latest version of this name is restored. */
  @IsString()
  @Length(1, 200)
  @NotContains('/')
  name: string;
}

export class RestoreResultDto {
  snapshot_id: string;
  name: string;
  version: number;
  target_subject_id: string;
  episodes_restored: number;
  memories_restored: number;
  /** Receipts the snapshot held that the target now holds too (unchanged, so they still verify). */
  receipts_restored: number;
}
