import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { PolicyFilterDto, SelectedEntryDto } from 'src/modules/receipts/dto/receipt.dto';

/** `now`, `original`, or an ISO-8601 time (date-time or date). */
const AS_OF = /^(now|original|\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?)$/;

/** What a replay reads when the request names no `as_of`: today's data. */
export const DEFAULT_REPLAY_AS_OF = 'now';

export class ReplayRequestDto {
  /**
   * The data the replay reads: `now` (default) today's, `original` as it stood at the receipt's
   * `as_of` (reproduces the original context hash unless something was deleted since), or the
   * data as it stood at an ISO-8601 time. A future time is a 422.
   */
  @ApiProperty({ required: false, default: DEFAULT_REPLAY_AS_OF, example: 'original', description: '`now`, `original` or an ISO-8601 time' })
  @IsOptional()
  @IsString()
  @Matches(AS_OF, { message: 'as_of must be "now", "original" or an ISO-8601 time' })
  as_of?: string;
}

export class ReplayHashDiffDto {
  original: string;
  replay: string;
  changed: boolean;
}

export class ReplayEntriesDiffDto {
  /** Entries of the replay the original did not have (matched by memory or episode id). */
  @ApiProperty({ type: [SelectedEntryDto] })
  added: SelectedEntryDto[];
  /** Entries of the original the replay did not have. */
  @ApiProperty({ type: [SelectedEntryDto] })
  removed: SelectedEntryDto[];
  /** Entries in both (a re-ranked entry counts as common). */
  common: number;
}

export class ReplayFiltersDiffDto {
  @ApiProperty({ type: [PolicyFilterDto] })
  added: PolicyFilterDto[];
  @ApiProperty({ type: [PolicyFilterDto] })
  removed: PolicyFilterDto[];
}

export class ReplayDiffDto {
  context_hash: ReplayHashDiffDto;
  selected_entries: ReplayEntriesDiffDto;
  filters_applied: ReplayFiltersDiffDto;
  /**
   * Whether the replay read the data as of the requested instant. False for a handoff receipt
   * replayed at another instant than now: a handoff pack reads health, SLA and resolutions, which
   * keep no history, so it is replayed against today's data (see `note`).
   */
  as_of_applied: boolean;
  /** Why the replay cannot reproduce the original exactly, when that is known beforehand; null otherwise. */
  @ApiProperty({ type: String, nullable: true })
  note: string | null;
}

export class ReplayResultDto {
  original_receipt_id: string;
  replay_receipt_id: string;
  /** The instant the replay read the data at (the replay receipt's `as_of`). */
  as_of: string;
  diff: ReplayDiffDto;
}
