import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { POLICY_ACTIONS, POLICY_MODES, SKIP_REASONS } from 'src/modules/policy/policy-bundle';

export class ReceiptIdParamDto {
  @IsString()
  @Length(1, 256)
  receipt_id: string;
}

export class ListReceiptsQueryDto {
  @IsOptional()
  @IsString()
  @Length(1, 256)
  subject_id?: string;

  /** Receipts created at or after this time (ISO-8601). */
  @IsOptional()
  @IsISO8601({ strict: true })
  since?: string;

  /** Receipts created before this time (ISO-8601). */
  @IsOptional()
  @IsISO8601({ strict: true })
  until?: string;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'cursor must be a next_cursor value' })
  cursor?: string;

  /** 1–200, default 50. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit: number = 50;
}

export class SelectedEntryDto {
  @ApiProperty({ enum: ['memory', 'episode'] })
  type: 'memory' | 'episode';
  @ApiProperty({ type: String, nullable: true })
  memory_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  kind: string | null;
  @ApiProperty({ type: String, nullable: true })
  valid_from: string | null;
  @ApiProperty({ type: String, nullable: true })
  valid_to: string | null;
  @ApiProperty({ enum: ['active', 'superseded', 'tombstoned'], nullable: true })
  supersession_status: string | null;
  @ApiProperty({ type: [String], nullable: true })
  source_episode_ids: string[] | null;
  /** Hex SHA-256 of the memory's content and source episode ids. */
  @ApiProperty({ type: String, nullable: true })
  provenance_hash: string | null;
  /** The attribute a fact is about. */
  @ApiProperty({ type: String, nullable: true })
  fact_key: string | null;
  @ApiProperty({ enum: ['none', 'merged', 'overridden', 'unresolved'], nullable: true })
  conflict_status: string | null;
  @ApiProperty({ type: String, nullable: true })
  episode_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  source: string | null;
  /** The episode's `type`. */
  @ApiProperty({ type: String, nullable: true })
  event_type: string | null;
  @ApiProperty({ type: String, nullable: true })
  occurred_at: string | null;
  /** 0-based position in the bundle. */
  rank: number;
  /** The composite score. */
  @ApiProperty({ type: Number, nullable: true })
  score: number | null;
}

export class PolicyFilterDto {
  rule_id: string;
  memory_id: string;
  labels: string[];
  @ApiProperty({ enum: POLICY_ACTIONS })
  action: string;
}

export class PolicySkipDto {
  rule_id: string;
  @ApiProperty({ enum: SKIP_REASONS })
  reason: string;
}

export class ReceiptPolicyDto {
  @ApiProperty({ type: String, nullable: true })
  policy_bundle_hash: string | null;
  @ApiProperty({ type: [PolicyFilterDto] })
  filters_applied: PolicyFilterDto[];
  @ApiProperty({ type: [PolicySkipDto] })
  filters_skipped: PolicySkipDto[];
  @ApiProperty({ enum: POLICY_MODES })
  mode: string;
}

export class ReceiptOutputDto {
  /** Lowercase hex SHA-256 of the UTF-8 bytes of the assembled text. */
  context_hash: string;
  context_size_bytes: number;
  canonicalization_version: string;
  token_estimate: number;
}

export class ReceiptRequestDto {
  @ApiProperty({ enum: ['context', 'handoff'] })
  endpoint: string;
  max_tokens: number;
  @ApiProperty({ type: String, nullable: true })
  session_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  caller_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  caller_type: string | null;
  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}

export class PolicySnapshotDto {
  @ApiProperty({ type: String, nullable: true })
  bundle_hash: string | null;
  @ApiProperty({ type: String, nullable: true })
  bundle_yaml: string | null;
  captured_at: string;
}

/** A state-assembly receipt (docs/governance.md section 1). */
export class ReceiptDto {
  receipt_id: string;
  @ApiProperty({ type: String, nullable: true })
  parent_receipt_id: string | null;
  @ApiProperty({ enum: ['retrieval', 'as_of_replay'] })
  mode: string;
  @ApiProperty({ type: String, nullable: true })
  query_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  task_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  tenant_id: string | null;
  subject_id: string;
  task: string;
  /** The time the assembly read the data at. */
  as_of: string;
  created_at: string;
  @ApiProperty({ type: [SelectedEntryDto] })
  selected_entries: SelectedEntryDto[];
  policy: ReceiptPolicyDto;
  output: ReceiptOutputDto;
  @ApiProperty({ type: String, nullable: true })
  region: string | null;
  /** What replay re-runs. */
  request: ReceiptRequestDto;
  @ApiProperty({ type: String, nullable: true })
  receipt_signature: string | null;
  @ApiProperty({ type: String, nullable: true })
  receipt_signature_key_id: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['hmac-sha256-canonical-v1'] })
  receipt_signature_algorithm: string | null;
  policy_snapshot: PolicySnapshotDto;
}

export class ReceiptListDto {
  /** Newest first. */
  @ApiProperty({ type: [ReceiptDto] })
  receipts: ReceiptDto[];
  /** Pass as `cursor` for the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor: string | null;
}

export class ReceiptVerdictDto {
  /** true: signature matches; false: it does not; null: it cannot be checked (see reason). */
  @ApiProperty({ type: Boolean, nullable: true })
  valid: boolean | null;
  @ApiProperty({ type: String, nullable: true })
  key_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  algorithm: string | null;
  @ApiProperty({ enum: ['ok', 'signature_mismatch', 'no_signature', 'key_unavailable', 'unsupported_algorithm'] })
  reason: string;
}
