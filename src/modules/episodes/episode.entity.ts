import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Immutable interaction record. `content_text` is derived from the payload at ingestion. */
@Entity('episodes')
export class EpisodeEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') subject_id: string;
  @Column({ type: 'varchar', nullable: true }) session_id: string | null;
  @Column('varchar') source: string;
  @Column('varchar') type: string;
  @Column('jsonb') payload: unknown;
  @Column('jsonb') metadata: Record<string, unknown>;
  @Column('jsonb') provenance: Record<string, unknown>;
  @Column({ type: 'varchar', nullable: true }) idempotency_key: string | null;
  @Column('text') content_text: string;
  @Column({ type: 'bigint', insert: false, update: false }) seq: string;
  @Column('timestamptz') created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) last_compiled_at: Date | null;
}
