import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { COMPILE_JOB_STATUSES, type CompileJobRow, type CompileJobStatus } from 'src/modules/memories/compile-job.entity';
import { MemoryDto, toMemoryDto } from './memory.dto';
import type { MemoryRow } from 'src/modules/memories/memory.entity';

export class CompileRequestDto {
  /** The subject whose uncompiled episodes are compiled. */
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** `true`: answer 202 with a job id and compile in the background. Synchronous when absent. */
  @IsOptional()
  @IsBoolean()
  async?: boolean;
}

export class CompileResultDto {
  subject_id: string;
  /** Memories stored by this call; 0 when every episode was already compiled. */
  memories_created: number;
  /** The stored memories, in compilation order: the first COMPILE_ECHO_LIMIT (100) of them. */
  memories: MemoryDto[];
  /** Stored memories not echoed in `memories` (read them with the timeline or search). */
  memories_omitted: number;
}

/** Most memories a compile answer or a job status carries; the rest are counted in `memories_omitted`. */
export const COMPILE_ECHO_LIMIT = 100;

export class CompileJobAcceptedDto {
  job_id: string;
  @ApiProperty({ enum: ['pending'] })
  status: 'pending';
  subject_id: string;
}

export class JobIdParamDto {
  /** A job id (UUID). Any other value names no job: 404, like an unknown UUID (compat.md). */
  @IsString()
  job_id: string;
}

/**
 * Status of a compile job. `memories_created` and `memories` appear once the job completed and
 * `error` once it failed; until then the keys are absent, never null (compat.md).
 */
export class CompileJobDto {
  job_id: string;
  @ApiProperty({ enum: COMPILE_JOB_STATUSES })
  status: CompileJobStatus;
  subject_id: string;
  created_at: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  started_at: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at: Date | null;
  /** Present when completed. */
  memories_created?: number;
  /** Present when completed: the memories the job stored (those still existing), at most COMPILE_ECHO_LIMIT. */
  memories?: MemoryDto[];
  /** Present when completed: stored memories not echoed in `memories`. */
  memories_omitted?: number;
  /** Present when failed: a generic message with the request id of the failure in the service log. */
  error?: string;
}

export function toCompileJobDto(job: CompileJobRow, memories: MemoryRow[] = []): CompileJobDto {
  const dto: CompileJobDto = {
    job_id: job.id,
    status: job.status,
    subject_id: job.subject_id,
    created_at: job.created_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
  };
  if (job.status === 'completed') {
    dto.memories_created = job.memories_created ?? memories.length;
    dto.memories = memories.map(toMemoryDto);
    dto.memories_omitted = Math.max(0, dto.memories_created - (job.memory_ids ?? []).length);
  }
  if (job.status === 'failed') dto.error = tenantVisibleJobError(job.id);
  return dto;
}

/**
 * What a tenant (REST or MCP) learns of a failed job: a generic message and the request id the
 * worker logged the failure under. The stored error comes from drivers, model gateways and
 * compilers, and carries host names, SQL and provider answers: it stays in the log and in the
 * operator's /admin/jobs.
 */
export function tenantVisibleJobError(jobId: string): string {
  return `Compile failed (request id job:${jobId}). Retry the compile; if it fails again, give the request id to the service operator.`;
}
