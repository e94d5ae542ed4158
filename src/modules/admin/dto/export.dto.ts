import { IsOptional, IsString } from 'class-validator';
import { Length } from 'src/common/http/text-length';

export class ExportQueryDto {
  /** Export only this tenant's rows of the subject. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}
