import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ResolutionStatus = 'open' | 'resolved' | 'unresolved';

/** One record per (tenant, subject, session); the id is kept across upserts. */
@Entity('resolutions')
export class ResolutionEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') subject_id: string;
  @Column('varchar') session_id: string;
  @Column('varchar') status: ResolutionStatus;
  @Column({ type: 'text', nullable: true }) resolution_summary: string | null;
  @Column({ type: 'timestamptz', nullable: true }) resolved_at: Date | null;
  @Column('jsonb') metadata: Record<string, unknown>;
  @Column('timestamptz') created_at: Date;
  @Column('timestamptz') updated_at: Date;
}
