import { Transform } from 'class-transformer';
import { IsNumber, IsOptional, IsString, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { TenantFilterQueryDto } from './snapshot.dto';

export const DEFAULT_CLEANUP_PREFIX = 'live_';
export const DEFAULT_CLEANUP_MAX_AGE_HOURS = 24;

export class CleanupQueryDto extends TenantFilterQueryDto {
  /** Subject id prefix, matched literally (`%` and `_` are ordinary characters). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  prefix: string = DEFAULT_CLEANUP_PREFIX;

  /** A subject is cleaned when its newest episode or memory is older than this; any finite number ≥ 0. */
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN))
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  max_age_hours: number = DEFAULT_CLEANUP_MAX_AGE_HOURS;
}

export class CleanupResultDto {
  subjects_cleaned: number;
}
