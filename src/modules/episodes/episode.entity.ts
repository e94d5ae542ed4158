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

export interface EpisodeRow {
  id: string;
  tenant_id: string | null;
  subject_id: string;
  session_id: string | null;
  source: string;
  type: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  provenance: Record<string, unknown> | null;
  content_text: string;
  created_at: Date;
  last_compiled_at: Date | null;
}

/** The few columns health, SLA and handoff read: no payload, text cut to a bound. */
export type EpisodeDigestRow = Pick<EpisodeEntity, 'id' | 'session_id' | 'source' | 'type' | 'content_text' | 'created_at'>;

/** What the wire shape needs of a row (reads that serve it skip the derived search text). */
export type EpisodeWireRow = Omit<EpisodeRow, 'content_text'>;
