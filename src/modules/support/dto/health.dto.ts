import { ApiProperty } from '@nestjs/swagger';
import { HEALTH_SIGNALS, HEALTH_STATES } from 'src/modules/support/support.types';
import type { HealthResult, HealthSignal, HealthState } from 'src/modules/support/support.types';

export class HealthFactorDto {
  @ApiProperty({ enum: HEALTH_SIGNALS })
  signal: HealthSignal;
  /** Signed whole points added to the base score of 100. */
  impact: number;
  /** Human-readable reason, with counts and session ids. */
  detail: string;
}

export class HealthResultDto {
  subject_id: string;
  /** 0–100. */
  score: number;
  /** healthy >= 70, watch 40–69, at_risk < 40. */
  @ApiProperty({ enum: HEALTH_STATES })
  state: HealthState;
  /** Most harmful first. */
  @ApiProperty({ type: [HealthFactorDto] })
  factors: HealthFactorDto[];
  /** When this result was computed. */
  generated_at: Date;
}

export function toHealthResultDto(result: HealthResult, generatedAt: Date): HealthResultDto {
  return {
    subject_id: result.subject_id,
    score: result.score,
    state: result.state,
    factors: result.factors.map((f) => ({ signal: f.signal, impact: f.impact, detail: f.detail })),
    generated_at: generatedAt,
  };
}
