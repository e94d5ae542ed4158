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

/** A memories row as the repository reads it (the embedding only when asked for). */
export interface MemoryRow {
  id: string;
  tenant_id: string | null;
  subject_id: string;
  kind: MemoryKind;
  content: string;
  summary: string;
  confidence: number;
  valid_from: Date;
  valid_to: Date | null;
  source_episode_ids: string[];
  metadata: Record<string, unknown> | null;
  status: MemoryStatus;
  attribute_key: string | null;
  superseded_by: string | null;
  needs_embedding: boolean;
  origin: MemoryOrigin;
  created_at: Date;
  updated_at: Date;
  /** Absent only where a query does not read it (empty = no labels). */
  sensitivity_labels?: string[];
  embedding?: number[] | null;
}
