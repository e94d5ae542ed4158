import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Length } from 'src/common/http/text-length';

export class CreateEpisodeDto {
  /** The subject (user, account, workspace, ticket, agent) this interaction belongs to. */
  @IsString()
  @Length(1, 256)
  subject_id: string;

  /** Where it came from, e.g. `user`, `support-chat`, `agent`. SLA reads customer vs agent from it. */
  @IsString()
  @Length(1, 256)
  source: string;

  /** Kind of record, e.g. `conversation`, `ticket`, `note`. */
  @IsString()
  @Length(1, 128)
  type: string;

  /** Free-form. Conversations use `{"messages": [{"role", "content"}]}`. */
  @IsObject()
  payload: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  provenance?: Record<string, unknown>;

  /** Support session (conversation/ticket) id; drives SLA, health and handoff. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  session_id?: string;

  /** A retry carrying the same key (same tenant) returns the original episode instead of a duplicate. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  idempotency_key?: string;
}

export class CreateEpisodesBatchDto {
  /** 1 to 100 episodes, stored all-or-nothing. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => CreateEpisodeDto)
  episodes: CreateEpisodeDto[];
}
