import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { entityRow } from 'src/common/db/row-shape';
import { EXPRESSION_INDEX, ID, JSON_OBJECT, NOW, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';

export type ResolutionStatus = 'open' | 'resolved' | 'unresolved';

/** One record per (tenant, subject, session) (migrations 0006, 0008); the id is kept across upserts. */
@Entity('resolutions')
// Really on ((coalesce(tenant_id, '')), subject_id, session_id): see EXPRESSION_INDEX.
@Index('ux_resolutions_tenant_subject_session', ['tenant_id', 'subject_id', 'session_id'], EXPRESSION_INDEX)
export class ResolutionEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column(ID) session_id: string;
  @Column({ type: 'varchar', length: 16, default: 'open' }) status: ResolutionStatus;
  @Column({ type: 'text', nullable: true }) resolution_summary: string | null;
  @Column(NULLABLE_TIME) resolved_at: Date | null;
  @Column(JSON_OBJECT) metadata: Record<string, unknown>;
  @Column(NOW) created_at: Date;
  @Column(NOW) updated_at: Date;
}

/** A resolutions row as the repository reads and returns it: every column, checked under test. */
export const RESOLUTION_ROW = entityRow(ResolutionEntity, [
  'id', 'tenant_id', 'subject_id', 'session_id', 'status', 'resolution_summary', 'resolved_at', 'metadata', 'created_at', 'updated_at',
] as const);
