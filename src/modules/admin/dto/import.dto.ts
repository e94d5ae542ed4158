import { IsBoolean, IsObject, IsOptional, IsString } from 'class-validator';
import { Length } from 'src/common/http/text-length';

export class ImportBodyDto {
  /** A document produced by GET /admin/export/{subject_id} (format_version "1.0", checksummed). */
  @IsObject()
  document: Record<string, unknown>;

  /** Defaults to the document's subject_id. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  target_subject_id?: string;

  /** Defaults to each row's own tenant_id. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  target_tenant_id?: string;

  /** true (default) keeps the document's ids and refuses ids that already exist; false gives every row a new id. */
  @IsOptional()
  @IsBoolean()
  preserve_ids?: boolean;
}

export class ImportResultDto {
  subject_id: string;
  tenant_id: string | null;
  episodes_imported: number;
  memories_imported: number;
  /** Receipts added; one the subject already holds with the same body is not counted (a re-import adds none). */
  receipts_imported: number;
  ids_preserved: boolean;
}
