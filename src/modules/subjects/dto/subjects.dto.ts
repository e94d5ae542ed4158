import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { EpisodeDto } from 'src/modules/episodes/dto/episode.dto';
import { MemoryDto } from 'src/modules/memories/dto/memory.dto';

export class SubjectParamDto {
  @IsString()
  @Length(1, 256)
  subject_id: string;
}

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

export class DeleteSubjectResultDto {
  subject_id: string;
  episodes_deleted: number;
  memories_deleted: number;
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
}

export class TimelineDto {
  subject_id: string;
  /** Oldest first. */
  episodes: EpisodeDto[];
  /** Every status (superseded ones show the history), oldest first. */
  memories: MemoryDto[];
}
