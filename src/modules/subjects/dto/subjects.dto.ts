import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { EpisodeDto } from 'src/modules/episodes/dto/episode.dto';
import { MemoryDto } from 'src/modules/memories/dto/memory.dto';

/** The `{subject_id}` of every route that names a subject in its path (subjects, support, admin export). */
export class SubjectParamDto {
  /** May contain `/`, sent URL-encoded as `%2F`. */
  @IsString()
  @Length(1, 256)
  subject_id: string;
}

/**
 * Page sizes when the request gives no `limit` (the service's default parameters; the DTO
 * comments below restate them for OpenAPI, and defaults.spec.ts holds the two equal).
 */
export const DEFAULT_SUBJECT_LIST_LIMIT = 50;
export const DEFAULT_TIMELINE_LIMIT = 1000;

export class ListSubjectsQueryDto {
  /** 1–200, default 50. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  /** ≥ 0, default 0. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  offset?: number;
}

export class SubjectListItemDto {
  subject_id: string;
  episode_count: number;
  memory_count: number;
}

export class SubjectListDto {
  subjects: SubjectListItemDto[];
  /** Number of matching subjects overall. */
  total: number;
}

/** Signed proof of an erasure (docs/governance.md section 4); signature fields null without signing keys. */
export class DeletionReceiptDto {
  subject_id: string;
  @ApiProperty({ type: String, nullable: true })
  tenant_id: string | null;
  deleted_at: string;
  /** Rows removed by kind: episodes, memories, compile_jobs, resolutions, health_state, health_history, receipts, events. */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' } })
  counts: Record<string, number>;
  /** Hex HMAC-SHA256 over the RFC 8785 text of {subject_id, tenant_id, deleted_at, counts}. */
  @ApiProperty({ type: String, nullable: true })
  signature: string | null;
  @ApiProperty({ type: String, nullable: true })
  key_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  algorithm: string | null;
}

export class DeleteSubjectResultDto {
  subject_id: string;
  episodes_deleted: number;
  memories_deleted: number;
  resolutions_deleted: number;
  receipts_deleted: number;
  compile_jobs_deleted: number;
  /** Cached health state rows (0 or 1). */
  health_state_deleted: number;
  /** Points of the subject's health history. */
  health_history_deleted: number;
  /** Stored webhook events that named the subject (deleted, or the subject taken out of a batch event). */
  events_deleted: number;
  deletion_receipt: DeletionReceiptDto;
}

export class TimelineQueryDto {
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** At most N episodes and N memories, oldest first; 1–10000, default 1000. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10000)
  limit?: number;

  /**
   * The timeline as it stood at this past instant (ISO-8601): episodes and memories created by
   * then, each memory with the status and validity it had then (docs/governance.md). A future time is a 422.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  as_of?: string;

  /** `next_cursor` of the previous page: continues both lists after it. */
  @IsOptional()
  @IsString()
  @Length(1, 512)
  cursor?: string;
}

export class TimelineDto {
  subject_id: string;
  /** Oldest first. */
  episodes: EpisodeDto[];
  /** Every status (superseded ones show the history), oldest first. */
  memories: MemoryDto[];
  /**
   * Set when either list has more rows than this page carries (beyond `limit`, or beyond the
   * page's byte budget, SERVICE_READ_PAGE_BYTES per list): pass it as `cursor` for the next
   * page. Null on the last page.
   */
  next_cursor: string | null;
}
