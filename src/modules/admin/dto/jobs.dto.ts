import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { ApiProperty } from '@nestjs/swagger';
import { COMPILE_JOB_STATUSES, type CompileJobStatus, type JobRow } from 'src/modules/memories/compile-job.entity';

export class ListJobsQueryDto {
  /** Only jobs in this state. */
  @ApiProperty({ enum: COMPILE_JOB_STATUSES, required: false })
  @IsOptional()
  @IsIn(COMPILE_JOB_STATUSES)
  status?: CompileJobStatus;

  @IsOptional()
  @IsString()
  @Length(1, 256)
  subject_id?: string;

  /** Only this tenant's jobs; without it jobs of every tenant (and legacy NULL-tenant jobs) are listed. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;

  /** 1–200. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit: number = 20;

  /** 0–1,000,000,000 (every numeric parameter has a maximum: the database's integer range is finite). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  offset: number = 0;
}

export class JobItemDto {
  job_id: string;
  subject_id: string;
  tenant_id: string | null;
  @ApiProperty({ enum: COMPILE_JOB_STATUSES })
  status: CompileJobStatus;
  /** Null until the job has completed. */
  memories_created: number | null;
  /** Set on failure. */
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export function toJobItemDto(row: JobRow): JobItemDto {
  return {
    job_id: row.id,
    subject_id: row.subject_id,
    tenant_id: row.tenant_id,
    status: row.status,
    memories_created: row.memories_created,
    error: row.error,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}

export class JobsPageDto {
  /** Newest first. */
  jobs: JobItemDto[];
  limit: number;
  offset: number;
}

export class JobIdParamDto {
  @IsUUID('all')
  job_id: string;
}

export class RequeueJobQueryDto {
  /** Only this tenant's job: another tenant's is a 404, as if it did not exist. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}
