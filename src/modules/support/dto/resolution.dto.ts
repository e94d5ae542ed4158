import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { Length, MaxLength } from 'src/common/http/text-length';
import { RESOLUTION_STATUSES } from 'src/modules/support/support.types';
import type { ResolutionRecord, ResolutionStatus } from 'src/modules/support/support.types';

/** A resolution's status when the request names none. */
export const DEFAULT_RESOLUTION_STATUS: ResolutionStatus = 'open';

export class UpsertResolutionDto {
  /** The subject (customer, account) the session belongs to. */
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** The support session (conversation, ticket); one record per (subject_id, session_id). */
  @IsString()
  @Length(1, 256)
  session_id: string;

  /** `open` when absent; any value may be sent at any time. */
  @ApiProperty({ enum: RESOLUTION_STATUSES, required: false, default: DEFAULT_RESOLUTION_STATUS })
  @IsOptional()
  @IsIn(RESOLUTION_STATUSES)
  status?: ResolutionStatus = DEFAULT_RESOLUTION_STATUS;

  /** Free text, at most 2000 characters; null or absent clears it. */
  @ApiProperty({ type: String, required: false, nullable: true, maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  resolution_summary?: string | null;

  /** Free-form; `{}` when absent. */
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class ListResolutionsQueryDto {
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** Only records with this status. */
  @ApiProperty({ enum: RESOLUTION_STATUSES, required: false })
  @IsOptional()
  @IsIn(RESOLUTION_STATUSES)
  status?: ResolutionStatus;
}

/** A resolutions row as the repository reads it. */
export type ResolutionRow = ResolutionRecord;

/** The resolution record on the wire (compat.md "Records"). */
export class ResolutionDto {
  /** Kept across upserts of the same (subject_id, session_id). */
  id: string;
  subject_id: string;
  session_id: string;
  @ApiProperty({ enum: RESOLUTION_STATUSES })
  status: ResolutionStatus;
  @ApiProperty({ type: String, nullable: true })
  resolution_summary: string | null;
  /** When the status became `resolved`; null for any other status. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  resolved_at: Date | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export function toResolutionDto(row: ResolutionRow): ResolutionDto {
  return {
    id: row.id,
    subject_id: row.subject_id,
    session_id: row.session_id,
    status: row.status,
    resolution_summary: row.resolution_summary ?? null,
    resolved_at: row.resolved_at ?? null,
    metadata: row.metadata ?? {},
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
