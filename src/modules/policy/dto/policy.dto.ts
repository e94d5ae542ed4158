import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { Length, MaxLength } from 'src/common/http/text-length';
import { RECEIPTS_SETTINGS } from 'src/config/config.schema';
import type { ReceiptsSetting } from 'src/config/config.schema';
import { POLICY_MODES } from 'src/modules/policy/policy-bundle';
import type { PolicyMode } from 'src/modules/policy/policy-bundle';

export class PolicyTenantQueryDto {
  /** The tenant whose bundle this is; without it, the single-tenant bundle. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}

export class PutPolicyBodyDto {
  /** The bundle as YAML text (version, mode, require_caller_identity, receipts, rules). */
  @ApiProperty({ example: 'version: 1\nmode: enforce\nrules:\n  - id: medical-only-for-clinicians\n    deny_labels: [health]\n    unless_caller_types: [clinician]\n' })
  @IsString()
  @MaxLength(65536)
  yaml: string;
}

export class PolicyRuleDto {
  id: string;
  deny_labels: string[];
  unless_caller_types: string[];
}

export class PolicyBundleDto {
  @ApiProperty({ type: String, nullable: true })
  tenant_id: string | null;
  /** Hex SHA-256 of the stored YAML text. */
  policy_bundle_hash: string;
  yaml: string;
  @ApiProperty({ enum: POLICY_MODES })
  mode: PolicyMode;
  require_caller_identity: boolean;
  /** The bundle's override of the RECEIPTS setting, or null. */
  @ApiProperty({ enum: RECEIPTS_SETTINGS, nullable: true })
  receipts: ReceiptsSetting | null;
  @ApiProperty({ type: [PolicyRuleDto] })
  rules: PolicyRuleDto[];
  updated_at: Date;
}

export class PolicyDeletedDto {
  /** False when there was no bundle. */
  deleted: boolean;
}
