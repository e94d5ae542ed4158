import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EXPRESSION_INDEX, ID, NOW, NULLABLE_ID } from 'src/db/column-types';

/** A subject whose health an ingestion changed and no recomputation has consumed yet (migration 0017; written by a trigger on episodes). */
@Entity('health_refresh_marks')
// Really on ((coalesce(tenant_id, '')), subject_id): see EXPRESSION_INDEX.
@Index('ux_health_refresh_marks_tenant_subject', ['tenant_id', 'subject_id'], EXPRESSION_INDEX)
@Index('ix_health_refresh_marks_marked_at', ['marked_at'])
export class HealthRefreshMarkEntity {
  /** A surrogate key (migration 0021): TypeORM needs one, the table is keyed by the unique index above. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) row_id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column(NOW) marked_at: Date;
}
