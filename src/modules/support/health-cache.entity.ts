import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EXPRESSION_INDEX, ID, NOW, NULLABLE_ID } from 'src/db/column-types';

/** Last computed health of a subject (migration 0012), compared on each computation to emit transition events once. */
@Entity('health_cache')
// Really on ((coalesce(tenant_id, '')), subject_id): see EXPRESSION_INDEX.
@Index('ux_health_cache_tenant_subject', ['tenant_id', 'subject_id'], EXPRESSION_INDEX)
export class HealthCacheEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column({ type: 'varchar', length: 16 }) state: string;
  @Column('integer') score: number;
  @Column({ type: 'jsonb', default: () => "'[]'" }) factors: unknown[];
  @Column(NOW) updated_at: Date;
}
