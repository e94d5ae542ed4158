import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { CallerIdentityDto } from 'src/modules/policy/dto/caller-identity.dto';

/**
 * The governance fields of POST /v1/context and POST /v1/handoff (docs/governance.md section 1):
 * ask for a receipt, correlate it, and say who is asking (read by the policy bundle).
 */
export class ReceiptRequestFieldsDto extends CallerIdentityDto {
  /** Ask for a receipt of this call (RECEIPTS=on_request, the default). */
  @IsOptional()
  @IsBoolean()
  emit_receipt?: boolean;

  /** The caller's own query id, stored on the receipt. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  query_id?: string;

  /** The caller's own task id, stored on the receipt. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  task_id?: string;

  /** A receipt this call follows from (multi-step agents). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  parent_receipt_id?: string;

}

/** The fields a governed response adds. */
export class ReceiptResponseFieldsDto {
  /** The receipt written for this call, or null. */
  receipt_id: string | null;
  /** Whether a receipt was written (false when not asked for, turned off, or writing failed). */
  receipt_emitted: boolean;
}
