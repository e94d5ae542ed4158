import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { HealthPointRow } from 'src/modules/support/health-history.entity';
import { HEALTH_STATES } from 'src/modules/support/support.types';
import type { HealthState } from 'src/modules/support/support.types';

/** Points answered when the request gives no `limit`: the newest 50. */
export const DEFAULT_HEALTH_HISTORY_LIMIT = 50;
/** The largest `limit`, and how many points a subject keeps (HEALTH_HISTORY_KEPT in support.repository.ts). */
export const MAX_HEALTH_HISTORY_LIMIT = 200;

export class HealthHistoryQueryDto {
  /** Newest points to answer, 1–200, default 50. */
  @ApiProperty({ type: Number, required: false, default: DEFAULT_HEALTH_HISTORY_LIMIT, minimum: 1, maximum: MAX_HEALTH_HISTORY_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_HEALTH_HISTORY_LIMIT)
  limit?: number;
}

export class HealthPointDto {
  /** When the recomputation that changed the score or state ran. */
  at: Date;
  /** 0–100. */
  score: number;
  @ApiProperty({ enum: HEALTH_STATES })
  state: HealthState;
}

export class HealthHistoryDto {
  subject_id: string;
  /**
   * Oldest first: one point each time a recomputation changed the score or state (an unchanged
   * recomputation adds none). The service keeps the newest 200 per subject; a subject without
   * sessions, or unknown, has none.
   */
  @ApiProperty({ type: [HealthPointDto] })
  points: HealthPointDto[];
}

export function toHealthHistoryDto(subjectId: string, rows: HealthPointRow[]): HealthHistoryDto {
  return { subject_id: subjectId, points: rows.map((r) => ({ at: r.recorded_at, score: r.score, state: r.state as HealthState })) };
}
