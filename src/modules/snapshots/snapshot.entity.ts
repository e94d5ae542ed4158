import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { ID, JSON_OBJECT, NOW, NULLABLE_ID } from 'src/db/column-types';

/** Metadata of an append-only snapshot (migrations 0007, 0008); its rows live under `snapshot_subject_id`. */
@Entity('snapshots')
@Unique('ux_snapshots_name_version', ['name', 'version'])
export class SnapshotEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column('integer') version: number;
  @Column(ID) source_subject_id: string;
  @Column({ type: 'varchar', length: 300 }) snapshot_subject_id: string;
  @Column(JSON_OBJECT) metadata: Record<string, unknown>;
  @Column({ type: 'integer', default: 0 }) episode_count: number;
  @Column({ type: 'integer', default: 0 }) memory_count: number;
  @Column(NOW) created_at: Date;
}

/** A snapshots row as the repository reads it: every column of the entity. */
export type SnapshotRow = SnapshotEntity;
