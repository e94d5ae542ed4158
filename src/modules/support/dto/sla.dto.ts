import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNumber, IsOptional, Max, Min } from 'class-validator';
import { DEFAULT_SLA_THRESHOLDS } from 'src/modules/support/sla';
import { SESSION_STATUSES } from 'src/modules/support/support.types';
import type { SessionStatus, SlaResult } from 'src/modules/support/support.types';

/**
 * Query strings arrive as text. Only a plain decimal number converts (`5`, `0.5`, `1e3`);
 * `NaN`, `Infinity`, hex, blanks and repeated parameters stay as they are and fail validation,
 * so they answer 422 naming the field instead of reaching the arithmetic.
 */
const toNumber = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value.trim()) ? Number(value) : value;

/**
 * Upper bound of both thresholds. Any finite number >= 0 is meaningful, but a million minutes
 * (about two years) or hours is already beyond every session; larger values only invite
 * overflow games, so they are refused.
 */
export const MAX_SLA_THRESHOLD = 1_000_000;

/** The contract's thresholds (sla.ts keeps them for the health score too), named here for the DTO's defaults. */
export const DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES = DEFAULT_SLA_THRESHOLDS.firstResponseThresholdMinutes;
export const DEFAULT_RESOLUTION_THRESHOLD_HOURS = DEFAULT_SLA_THRESHOLDS.resolutionThresholdHours;

export class SlaQueryDto {
  /** Minutes beyond which the first response is breached; any finite number >= 0. */
  @ApiProperty({ type: Number, required: false, default: DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES, minimum: 0, maximum: MAX_SLA_THRESHOLD })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_SLA_THRESHOLD)
  first_response_threshold_minutes?: number = DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES;

  /** Hours beyond which the resolution is breached; any finite number >= 0. */
  @ApiProperty({ type: Number, required: false, default: DEFAULT_RESOLUTION_THRESHOLD_HOURS, minimum: 0, maximum: MAX_SLA_THRESHOLD })
  @IsOptional()
  @Transform(toNumber)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_SLA_THRESHOLD)
  resolution_threshold_hours?: number = DEFAULT_RESOLUTION_THRESHOLD_HOURS;
}

export class SlaSessionDto {
  session_id: string;
  /** The resolution status, or `unknown` without a resolution record. */
  @ApiProperty({ enum: SESSION_STATUSES })
  status: SessionStatus;
  /** First customer-like episode, else the session's first episode. */
  first_message_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  first_response_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  resolved_at: string | null;
  @ApiProperty({ type: Number, nullable: true })
  first_response_seconds: number | null;
  @ApiProperty({ type: Number, nullable: true })
  resolution_seconds: number | null;
  /** Null for a resolved session. */
  @ApiProperty({ type: Number, nullable: true })
  open_duration_seconds: number | null;
  first_response_breached: boolean;
  resolution_breached: boolean;
}

export class SlaResultDto {
  subject_id: string;
  total_sessions: number;
  resolved_sessions: number;
  /**
   * Sessions whose resolution record says `open` or `unresolved`. A session without a record
   * (status `unknown`) counts in total_sessions only.
   */
  open_sessions: number;
  /** Over the sessions that have a first response; 0 when none has. */
  avg_first_response_seconds: number;
  /** Over the resolved sessions; 0 when none is. */
  avg_resolution_seconds: number;
  first_response_breach_count: number;
  resolution_breach_count: number;
  /** Ordered by first_message_at, then session_id. */
  @ApiProperty({ type: [SlaSessionDto] })
  sessions: SlaSessionDto[];
}

export function toSlaResultDto(result: SlaResult): SlaResultDto {
  return { ...result, sessions: result.sessions.map((s) => ({ ...s })) };
}
