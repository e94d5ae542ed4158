import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsISO8601, IsOptional, IsString, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { EpisodeDto } from 'src/modules/episodes/dto/episode.dto';
import { MemoryDto } from 'src/modules/memories/dto/memory.dto';
import { ReceiptRequestFieldsDto } from 'src/modules/receipts/dto/receipt-request.dto';

export class ContextRequestDto extends ReceiptRequestFieldsDto {
  /** The subject whose memory is assembled. */
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** What the agent is about to do; relevance is judged against it. */
  @IsString()
  @Length(1, 4000)
  task: string;

  /** Hard budget for `assembled_context` in cl100k tokens; default SERVICE_DEFAULT_MAX_CONTEXT_TOKENS (4000 unless set). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(128000)
  max_tokens?: number;

  /** The conversation happening now: its items rank higher and render under `### Current session (<id>)`. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  session_id?: string;

  /**
   * Answer as the service would have at this past instant (ISO-8601): episodes and memories as
   * they stood then, validity judged at it (docs/governance.md, As-of reads). A future time is a 422.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  as_of?: string;
}

/** Ids of everything the bundle contains, by section; every array is always present. */
export class ContextProvenanceDto {
  fact_ids: string[];
  summary_ids: string[];
  procedure_ids: string[];
  episode_ids: string[];
}

/** A session of the episodes in the bundle; figures cover the bundle's episodes of it. */
export class ContextSessionDto {
  session_id: string;
  /** Episodes of the session in the bundle, raw or summarised. */
  episode_count: number;
  /** Time of the earliest of those episodes. */
  first_at: string;
  /** Time of the latest of those episodes. */
  last_at: string;
}

export class ContextBundleDto {
  subject_id: string;
  task: string;
  /** Profile facts, then the episode summaries in the bundle (compat.md lists summaries here too). */
  facts: MemoryDto[];
  /** Raw episodes in the bundle, in time order. */
  episodes: EpisodeDto[];
  procedures: MemoryDto[];
  provenance: ContextProvenanceDto;
  /** Markdown: `## Task`, `## About this user`, `## Procedures`, `## Recent history`, `## Recent interactions`; empty sections are left out. */
  assembled_context: string;
  /** cl100k tokens of `assembled_context`; never more than `max_tokens`. */
  token_estimate: number;
  /** Sessions of the episodes in the bundle (raw or summarised), sorted by session id. */
  sessions: ContextSessionDto[];
  /** The receipt written for this call (docs/governance.md), or null. */
  @ApiProperty({ type: String, nullable: true })
  receipt_id: string | null;
  /** Whether a receipt was written. */
  receipt_emitted: boolean;
}
