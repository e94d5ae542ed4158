import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { entityRow, rowOf } from 'src/common/db/row-shape';
import { ID, NOW, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';

/** The statuses of a compile job, in lifecycle order: the one list (DTOs, admin filter, metrics). */
export const COMPILE_JOB_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type CompileJobStatus = (typeof COMPILE_JOB_STATUSES)[number];

/** An asynchronous compile request (migrations 0002, 0008, 0011); claimed by workers with FOR UPDATE SKIP LOCKED. */
@Entity('compile_jobs')
@Index('ix_compile_jobs_status_created', ['status', 'created_at'])
@Index('ix_compile_jobs_tenant_subject', ['tenant_id', 'subject_id'])
export class CompileJobEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column({ type: 'varchar', length: 16, default: 'pending' }) status: CompileJobStatus;
  @Column({ type: 'integer', nullable: true }) memories_created: number | null;
  @Column({ type: 'uuid', array: true, nullable: true }) memory_ids: string[] | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column(NOW) created_at: Date;
  @Column(NULLABLE_TIME) started_at: Date | null;
  @Column(NULLABLE_TIME) completed_at: Date | null;
  @Column(NOW) updated_at: Date;
}

/** A compile_jobs row as the repository reads it: every column of the entity, in this order, checked under test. */
export const COMPILE_JOB_ROW = rowOf<CompileJobEntity>({
  id: true, tenant_id: true, subject_id: true, status: true, memories_created: true, memory_ids: true, error: true, attempts: true,
  created_at: true, started_at: true, completed_at: true, updated_at: true,
});
export type CompileJobRow = typeof COMPILE_JOB_ROW.row;

/** The columns the operator job listing reads. */
export const JOB_ROW = entityRow(CompileJobEntity, ['id', 'subject_id', 'tenant_id', 'status', 'memories_created', 'error', 'created_at', 'started_at', 'completed_at'] as const);
export type JobRow = typeof JOB_ROW.row;
