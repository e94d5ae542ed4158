import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The statuses of a compile job, in lifecycle order: the one list (DTOs, admin filter, metrics). */
export const COMPILE_JOB_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type CompileJobStatus = (typeof COMPILE_JOB_STATUSES)[number];

/** An asynchronous compile request; claimed by workers with FOR UPDATE SKIP LOCKED. */
@Entity('compile_jobs')
export class CompileJobEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') subject_id: string;
  @Column('varchar') status: CompileJobStatus;
  @Column({ type: 'integer', nullable: true }) memories_created: number | null;
  @Column('uuid', { array: true, nullable: true }) memory_ids: string[] | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column('integer') attempts: number;
  @Column('timestamptz') created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) started_at: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) completed_at: Date | null;
  @Column('timestamptz') updated_at: Date;
}

/** A compile_jobs row as the repository reads it: every column of the entity. */
export type CompileJobRow = CompileJobEntity;

/** The columns the operator job listing reads. */
export type JobRow = Pick<CompileJobEntity, 'id' | 'subject_id' | 'tenant_id' | 'status' | 'memories_created' | 'error' | 'created_at' | 'started_at' | 'completed_at'>;
