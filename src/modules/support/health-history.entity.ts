import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { entityRow } from 'src/common/db/row-shape';
import { ID, NOW, NULLABLE_ID } from 'src/db/column-types';

/** One point of a subject's health trend (migration 0022): appended when a recomputation changes the score or state. */
@Entity('health_history')
@Index('ix_health_history_tenant_subject', ['tenant_id', 'subject_id', 'row_id'])
export class HealthHistoryEntity {
  /** Orders a subject's points as appended (recorded_at can tie); no statement writes it. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) row_id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column('integer') score: number;
  @Column({ type: 'varchar', length: 16 }) state: string;
  @Column(NOW) recorded_at: Date;
}

/** A point as the repository reads it and the history DTO renders it. */
export const HEALTH_POINT_ROW = entityRow(HealthHistoryEntity, ['score', 'state', 'recorded_at'] as const);
export type HealthPointRow = typeof HEALTH_POINT_ROW.row;
