import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Last computed health of a subject, compared on each computation to emit transition events once. */
@Entity('health_cache')
export class HealthCacheEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') subject_id: string;
  @Column('varchar') state: string;
  @Column('integer') score: number;
  @Column('jsonb') factors: unknown[];
  @Column('timestamptz') updated_at: Date;
}
