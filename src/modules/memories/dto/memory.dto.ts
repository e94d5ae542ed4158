import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MEMORY_KINDS, MEMORY_ORIGINS, MEMORY_STATUSES } from 'src/compiler/memory-kinds';
import type { MemoryKind, MemoryOrigin, MemoryStatus } from 'src/compiler/memory-kinds';

/** Where a time-ordered page of a subject's memories stopped: the last row's (created_at, id). */
export interface MemoryCursor {
  /** created_at as ISO text with microseconds (exact, unlike a JS Date). */
  at: string;
  id: string;
}

/** Options of a timeline page: where it continues, its row and byte bounds, and the as-of instant. */
export interface MemoryPageOptions {
  after: MemoryCursor | null;
  limit: number;
  maxBytes: number;
  asOf?: Date | null;
}

/**
 * The memory record on the wire (compat.md "Records"). No nulls except `valid_to`, whose key is
 * always present: one client parses strictly and fails on a null string or a missing key.
 */
export class MemoryDto {
  id: string;
  subject_id: string;
  @ApiProperty({ enum: MEMORY_KINDS })
  kind: MemoryKind;
  content: string;
  /** One-line form of the content; may be empty, never null. */
  summary: string;
  /** 0–1. */
  confidence: number;
  valid_from: Date;
  /** When the memory stopped being true (superseded or expired); null = no expiry. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  valid_to: Date | null;
  /** Provenance: the episodes this memory was compiled from. */
  source_episode_ids: string[];
  metadata: Record<string, unknown>;
  @ApiProperty({ enum: MEMORY_STATUSES })
  status: MemoryStatus;
  /** Provenance: `compile` (drawn from `source_episode_ids`) or `api` (written directly with POST /v1/memories or a correction). */
  @ApiProperty({ enum: MEMORY_ORIGINS })
  origin: MemoryOrigin;
  created_at: Date;
  updated_at: Date;
  /** Labels a tenant's policy bundle can deny to some callers (docs/governance.md); may be empty. */
  sensitivity_labels: string[];
  /**
   * The memory that replaced this one (a compile's supersession, a correction, a restated
   * memory), so a reader can walk a memory's versions. Present only on a superseded memory:
   * records keep a fixed key set without nulls for the clients that parse them strictly
   * (compat.md "Records"), and those clients only ever see this key where it holds an id.
   */
  @ApiPropertyOptional({ format: 'uuid' })
  superseded_by?: string;
}

export function toMemoryDto(row: MemoryRow): MemoryDto {
  return {
    id: row.id,
    subject_id: row.subject_id,
    kind: row.kind,
    content: row.content,
    summary: row.summary ?? '',
    confidence: row.confidence,
    valid_from: row.valid_from,
    valid_to: row.valid_to ?? null,
    source_episode_ids: row.source_episode_ids ?? [],
    metadata: row.metadata ?? {},
    status: row.status,
    origin: row.origin,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sensitivity_labels: row.sensitivity_labels ?? [],
    ...(row.superseded_by ? { superseded_by: row.superseded_by } : {}),
  };
}
