import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { MemoryKind, MemoryStatus } from 'src/compiler/memory-kinds';
import { ID, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';

/**
 * The state a memory had before an in-place change a reader sees, until `recorded_until`
 * (migration 0014). Written only by the `memories_revision` trigger; as-of reads use it.
 */
@Entity('memory_revisions')
@Index('ix_memory_revisions_memory', ['memory_id', 'recorded_until'])
@Index('ix_memory_revisions_tenant_subject', ['tenant_id', 'subject_id'])
export class MemoryRevisionEntity {
  /** pg returns bigint as text. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) seq: string;
  @Column('uuid') memory_id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column({ type: 'varchar', length: 32 }) kind: MemoryKind;
  @Column('text') content: string;
  @Column('text') summary: string;
  @Column('double precision') confidence: number;
  @Column('timestamptz') valid_from: Date;
  @Column(NULLABLE_TIME) valid_to: Date | null;
  @Column({ type: 'uuid', array: true }) source_episode_ids: string[];
  @Column('jsonb') metadata: Record<string, unknown>;
  @Column({ type: 'varchar', length: 16 }) status: MemoryStatus;
  @Column(NULLABLE_ID) attribute_key: string | null;
  @Column({ type: 'uuid', nullable: true }) superseded_by: string | null;
  @Column({ type: 'varchar', length: 64, array: true }) sensitivity_labels: string[];
  @Column('timestamptz') recorded_until: Date;
}
