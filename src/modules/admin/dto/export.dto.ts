import { IsOptional, IsString } from 'class-validator';
import { Length } from 'src/common/http/text-length';

export class SubjectParamDto {
  /** May contain `/` (send it as `%2F`). */
  @IsString()
  @Length(1, 256)
  subject_id: string;
}

export class ExportQueryDto {
  /** Export only this tenant's rows of the subject. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}
