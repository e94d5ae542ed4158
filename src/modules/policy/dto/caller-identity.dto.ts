import { IsOptional, IsString } from 'class-validator';
import { Length } from 'src/common/http/text-length';

/**
 * Who is asking, on every read the tenant's policy bundle governs (context, handoff, search and
 * the MCP tools): one definition, so the REST bodies, query strings and MCP inputs agree.
 */
export class CallerIdentityDto {
  /** Who is asking, e.g. `agent-7`. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  caller_id?: string;

  /** What kind of caller, e.g. `support_bot`; policy rules name caller types. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  caller_type?: string;
}
