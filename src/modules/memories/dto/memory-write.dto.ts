import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsISO8601, IsNumber, IsObject, IsOptional, IsString, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { MEMORY_KINDS } from 'src/compiler/memory-kinds';
import type { MemoryKind, MemoryStatus } from 'src/compiler/memory-kinds';
import { toBool } from './search.dto';

/** Longest content of a memory written over the API; compiled memories are far shorter. */
export const MAX_MEMORY_CONTENT = 10_000;
/** A remembered memory's confidence when the request gives none. */
export const DEFAULT_MEMORY_CONFIDENCE = 1;

/** POST /v1/memories: remember one thing about a subject directly, without an episode. */
export class RememberMemoryDto {
  @ApiProperty({ example: 'user-42' })
  @IsString()
  @Length(1, 256)
  subject_id: string;

  @ApiProperty({ enum: MEMORY_KINDS, example: 'profile_fact' })
  @IsIn(MEMORY_KINDS)
  kind: MemoryKind;

  /** The memory itself, 1–10,000 characters. */
  @ApiProperty({ example: 'I am on the Team plan.' })
  @IsString()
  @Length(1, MAX_MEMORY_CONTENT)
  content: string;

  /** One-line form; derived from the content when absent. */
  @IsOptional()
  @IsString()
  @Length(0, 1000)
  summary?: string;

  /**
   * What the memory is about (e.g. `profile:plan`): a later memory of the same kind and key
   * supersedes it. Derived for profile facts that state one attribute; otherwise none.
   */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  attribute_key?: string;

  /** 0–1, default 1. */
  @ApiProperty({ required: false, minimum: 0, maximum: 1, default: DEFAULT_MEMORY_CONFIDENCE, example: 0.9 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  confidence?: number;

  /** When it became true (ISO-8601); default now. */
  @ApiProperty({ required: false, type: String, format: 'date-time', example: '2026-11-01T09:30:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  valid_from?: string;

  @ApiProperty({ required: false, example: { source: 'crm-sync' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  /**
   * Sensitivity labels the tenant's policy bundle reads (docs/governance.md); normalised like
   * `PATCH /v1/memories/{id}/labels` (trimmed, lowercased, de-duplicated; at most 32, each 1–64
   * characters of `a-z 0-9 . _ : -`). Default none.
   */
  @ApiProperty({ required: false, type: [String], example: ['pii'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  sensitivity_labels?: unknown[];

  /** A retry carrying the same key (same tenant) returns the original memory instead of a second one. */
  @ApiProperty({ required: false, example: 'crm-sync-2026-11-01-user-42-plan' })
  @IsOptional()
  @IsString()
  @Length(1, 256)
  idempotency_key?: string;
}

/**
 * PATCH /v1/memories/{id}: a correction. Every field is optional but one must be given; what
 * is absent is carried over from the corrected version (`metadata` is replaced, not merged).
 */
export class CorrectMemoryDto {
  @ApiProperty({ required: false, example: 'I am on the Enterprise plan.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_MEMORY_CONTENT)
  content?: string;

  /** Derived again from new content when absent. */
  @IsOptional()
  @IsString()
  @Length(0, 1000)
  summary?: string;

  @ApiProperty({ required: false, minimum: 0, maximum: 1, example: 1 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  confidence?: number;

  /** When the corrected statement became true; default now, never before the corrected version's. */
  @ApiProperty({ required: false, type: String, format: 'date-time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  valid_from?: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class MemoryIdParamDto {
  /** A memory id (UUID); anything else names no memory (404). */
  @IsString()
  @Length(1, 256)
  id: string;
}

export class ForgetMemoryQueryDto {
  /** `true`: remove the rows instead of leaving tombstones (operators; receipts citing them then no longer resolve). */
  @ApiProperty({ type: Boolean, required: false, default: false })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  hard?: boolean = false;
}

export class ForgetMemoryResultDto {
  @ApiProperty({ example: '8d0f2c8e-3c55-4f0b-9a55-2d1c3b9e7a10' })
  id: string;
  @ApiProperty({ example: 'user-42' })
  subject_id: string;
  /** `tombstoned` (content erased, row kept) or `deleted` (row removed, `?hard=true`). */
  @ApiProperty({ enum: ['tombstoned', 'deleted'] })
  status: Extract<MemoryStatus, 'tombstoned' | 'deleted'>;
  /** Rows forgotten: the memory and the earlier versions it replaced. 0 when already forgotten. */
  @ApiProperty({ example: 2 })
  memories_forgotten: number;
}
