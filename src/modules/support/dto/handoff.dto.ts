import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Length, MaxLength } from 'src/common/http/text-length';
import { HEALTH_STATES, RESOLUTION_STATUSES } from 'src/modules/support/support.types';
import type { HandoffPack, HealthState, ResolutionStatus } from 'src/modules/support/support.types';
import { ReceiptRequestFieldsDto } from 'src/modules/receipts/dto/receipt-request.dto';
import { HealthFactorDto } from './health.dto';

/** A handoff's `reason` and `max_tokens` when absent (the DTO's defaults and the service's fallbacks, e.g. for a replay). */
export const DEFAULT_HANDOFF_REASON = 'escalation';
export const DEFAULT_HANDOFF_MAX_TOKENS = 4000;

export class HandoffRequestDto extends ReceiptRequestFieldsDto {
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** The session being escalated. */
  @IsString()
  @Length(1, 256)
  session_id: string;

  /** Why the session is handed over; `escalation` when absent. */
  @ApiProperty({ type: String, required: false, default: DEFAULT_HANDOFF_REASON, maxLength: 256 })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  reason?: string = DEFAULT_HANDOFF_REASON;

  /** Token budget of `handoff_notes` (cl100k); 1–16000. */
  @ApiProperty({ type: Number, required: false, default: DEFAULT_HANDOFF_MAX_TOKENS, minimum: 1, maximum: 16000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(16000)
  max_tokens?: number = DEFAULT_HANDOFF_MAX_TOKENS;
}

export class ResolutionHistoryItemDto {
  session_id: string;
  @ApiProperty({ enum: RESOLUTION_STATUSES })
  status: ResolutionStatus;
  /** The resolution summary, '' when none was given. */
  summary: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  resolved_at: string | null;
}

export class HandoffProvenanceDto {
  /** The key facts (active profile facts). */
  fact_ids: string[];
  /** Episodes of the session behind the active issue and the attempted steps. */
  episode_ids: string[];
  resolution_ids: string[];
  /** Episodes shown in recent_context. */
  context_episode_ids: string[];
}

export class HandoffPackDto {
  subject_id: string;
  session_id: string;
  reason: string;
  generated_at: string;
  /** Starts with the subject id. */
  customer_summary: string;
  active_issue: string;
  attempted_steps: string[];
  /** Contents of the active profile facts, newest first. */
  key_facts: string[];
  @ApiProperty({ type: [ResolutionHistoryItemDto] })
  resolution_history: ResolutionHistoryItemDto[];
  recent_context: string[];
  @ApiProperty({ type: Number, nullable: true })
  health_score: number | null;
  @ApiProperty({ enum: HEALTH_STATES, nullable: true })
  health_state: HealthState | null;
  /** The (up to 3) most harmful health factors. */
  @ApiProperty({ type: [HealthFactorDto] })
  health_factors: HealthFactorDto[];
  /** Markdown brief, cut to max_tokens; identical requests give identical notes. */
  handoff_notes: string;
  /** Tokens of handoff_notes (cl100k); always <= max_tokens. */
  token_estimate: number;
  @ApiProperty({ type: HandoffProvenanceDto })
  provenance: HandoffProvenanceDto;
  /** The receipt written for this call (docs/governance.md), or null. */
  @ApiProperty({ type: String, nullable: true })
  receipt_id: string | null;
  /** Whether a receipt was written. */
  receipt_emitted: boolean;
}

export function toHandoffPackDto(pack: HandoffPack): Omit<HandoffPackDto, 'receipt_id' | 'receipt_emitted'> {
  return { ...pack };
}
