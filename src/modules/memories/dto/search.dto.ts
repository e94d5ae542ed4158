import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsISO8601, IsOptional, IsString, Max, Min } from 'class-validator';
import { Length, MaxLength } from 'src/common/http/text-length';
import { MEMORY_KINDS } from 'src/compiler/memory-kinds';
import { CallerIdentityDto } from 'src/modules/policy/dto/caller-identity.dto';
import { MemoryDto } from './memory.dto';

/** Query strings arrive as text: only the exact spellings convert, anything else stays and fails validation. */
const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^[+-]?\d{1,9}$/.test(value.trim()) ? Number(value) : value);
const BOOLEAN_SPELLINGS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };
/** `true`/`false`/`1`/`0` in a query string; anything else stays and fails validation. */
export const toBool = ({ value }: { value: unknown }) => (typeof value === 'string' && value.toLowerCase() in BOOLEAN_SPELLINGS ? BOOLEAN_SPELLINGS[value.toLowerCase()] : value);

/** Results of a search without `limit`: the DTO's default and the service's fallback for callers that build the query themselves. */
export const DEFAULT_SEARCH_LIMIT = 20;

/** The caller fields are read by the tenant's policy bundle (docs/governance.md). */
export class SearchMemoriesQueryDto extends CallerIdentityDto {
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /**
   * Only memories of this kind: `profile_fact`, `episode_summary`, `procedure` or `artifact_ref`.
   * Kinds are open-ended for clients (compat.md): any other kind matches nothing (an empty list),
   * it is not an error.
   */
  @ApiProperty({ required: false, example: MEMORY_KINDS[0] })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  kind?: string;

  /** Case-insensitive substring of `content` (`%` and `_` are literal), or the query text of a semantic search. */
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  q?: string;

  /** `true` (or `1`): rank by cosine similarity to `q`; falls back to text search when embeddings are unavailable. */
  @ApiProperty({ type: Boolean, required: false, default: false })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  semantic?: boolean = false;

  /** 1–100. */
  @ApiProperty({ type: Number, required: false, default: DEFAULT_SEARCH_LIMIT, minimum: 1, maximum: 100 })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number = DEFAULT_SEARCH_LIMIT;

  /** Search as the service would have at this past instant (ISO-8601): the memories and their status then (docs/governance.md). A future time is a 422. */
  @IsOptional()
  @IsISO8601({ strict: true })
  as_of?: string;
}

export class SearchResultMemoryDto extends MemoryDto {
  /** Cosine similarity to the query; semantic results only. */
  score?: number;
}

export class MemoriesListDto {
  memories: SearchResultMemoryDto[];
}
