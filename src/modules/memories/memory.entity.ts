import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MemoryKind, MemoryOrigin, MemoryStatus } from 'src/compiler/memory-kinds';

/** A compiled memory; `embedding` (real[]) is the source of truth, `embedding_vec` mirrors it under pgvector. */
@Entity('memories')
export class MemoryEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') subject_id: string;
  @Column('varchar') kind: MemoryKind;
  @Column('text') content: string;
  @Column('text') summary: string;
  @Column('double precision') confidence: number;
  @Column('timestamptz') valid_from: Date;
  @Column({ type: 'timestamptz', nullable: true }) valid_to: Date | null;
  @Column('uuid', { array: true }) source_episode_ids: string[];
  @Column('jsonb') metadata: Record<string, unknown>;
  @Column('varchar') status: MemoryStatus;
  @Column({ type: 'varchar', nullable: true }) attribute_key: string | null;
  @Column({ type: 'uuid', nullable: true }) superseded_by: string | null;
  @Column('real', { array: true, nullable: true }) embedding: number[] | null;
  @Column('boolean') needs_embedding: boolean;
  @Column('varchar') origin: MemoryOrigin;
  @Column({ type: 'varchar', nullable: true }) idempotency_key: string | null;
  @Column('timestamptz') created_at: Date;
  @Column('timestamptz') updated_at: Date;
}
