import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Metadata of an append-only snapshot; its rows live under `snapshot_subject_id`. */
@Entity('snapshots')
export class SnapshotEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') name: string;
  @Column('integer') version: number;
  @Column('varchar') source_subject_id: string;
  @Column('varchar') snapshot_subject_id: string;
  @Column('jsonb') metadata: Record<string, unknown>;
  @Column('integer') episode_count: number;
  @Column('integer') memory_count: number;
  @Column('timestamptz') created_at: Date;
}

/** A snapshots row as the repository reads it: every column of the entity. */
export type SnapshotRow = SnapshotEntity;
