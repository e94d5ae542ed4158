import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { MemoryKind, MemoryOrigin, MemoryStatus } from 'src/compiler/memory-kinds';
import { EXPRESSION_INDEX, ID, JSON_OBJECT, NOW, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';
import { asText, entityRow } from 'src/common/db/row-shape';

/**
 * A compiled memory, as migrations 0001 to 0014 made it. `embedding` (real[]) is the source of
 * truth; `embedding_vec` mirrors it where pgvector could be installed (migration 0004 adds it only
 * there: `alignVectorColumn` in src/db/vector-support.ts makes the metadata say the same).
 */
@Entity('memories')
@Index('ix_memories_subject_status_kind', ['subject_id', 'status', 'kind'])
@Index('ix_memories_tenant_subject_status_kind', ['tenant_id', 'subject_id', 'status', 'kind'])
@Index('ix_memories_active_attribute', ['subject_id', 'kind', 'attribute_key'], { where: "status = 'active'" })
@Index('ix_memories_content_tsv', ['content_tsv'], { type: 'gin' })
@Index('ix_memories_needs_embedding', ['created_at'], { where: 'needs_embedding' })
@Index('ix_memories_subject_created', ['subject_id', 'created_at'])
// Really on ((coalesce(tenant_id, '')), idempotency_key): see EXPRESSION_INDEX.
@Index('ux_memories_idempotency', ['tenant_id', 'idempotency_key'], { ...EXPRESSION_INDEX, where: 'idempotency_key IS NOT NULL' })
export class MemoryEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column({ type: 'varchar', length: 32 }) kind: MemoryKind;
  @Column('text') content: string;
  @Column({ type: 'text', default: '' }) summary: string;
  @Column({ type: 'double precision', default: () => '1.0' }) confidence: number;
  @Column(NOW) valid_from: Date;
  @Column(NULLABLE_TIME) valid_to: Date | null;
  @Column({ type: 'uuid', array: true, default: () => "'{}'" }) source_episode_ids: string[];
  @Column(JSON_OBJECT) metadata: Record<string, unknown>;
  @Column({ type: 'varchar', length: 16, default: 'active' }) status: MemoryStatus;
  @Column(NULLABLE_ID) attribute_key: string | null;
  @Column({ type: 'uuid', nullable: true }) superseded_by: string | null;
  @Column({ type: 'real', array: true, nullable: true }) embedding: number[] | null;
  /** pgvector's text form (`[1,2,3]`) when read; only under pgvector. */
  @Column({ type: 'vector', nullable: true, generatedType: 'STORED', asExpression: 'embedding::vector', insert: false, update: false, select: false })
  embedding_vec: string | null;
  @Column({ type: 'tsvector', nullable: true, generatedType: 'STORED', asExpression: "to_tsvector('english', content)", insert: false, update: false, select: false })
  content_tsv: string | null;
  @Column({ type: 'boolean', default: false }) needs_embedding: boolean;
  @Column({ type: 'varchar', length: 16, default: 'compile' }) origin: MemoryOrigin;
  @Column(NULLABLE_ID) idempotency_key: string | null;
  /** Empty = no labels. */
  @Column({ type: 'varchar', length: 64, array: true, default: () => "'{}'" }) sensitivity_labels: string[];
  @Column(NOW) created_at: Date;
  @Column(NOW) updated_at: Date;
}

/**
 * The columns a read of memories returns, in this order (hot SQL spells its select and RETURNING
 * lists from here): every column but the derived search and vector columns, the embedding (large:
 * read only when asked for) and the idempotency key (looked up, never served).
 */
export const MEMORY_COLUMNS = [
  'id', 'tenant_id', 'subject_id', 'kind', 'content', 'summary', 'confidence', 'valid_from', 'valid_to', 'source_episode_ids',
  'metadata', 'status', 'attribute_key', 'superseded_by', 'needs_embedding', 'origin', 'created_at', 'updated_at', 'sensitivity_labels',
] as const satisfies readonly (keyof MemoryEntity)[];

/**
 * Ties between memories in a bounded fetch, for a table aliased `x`. A compile writes its
 * memories with one `created_at` and ids are random, so ties broken by the id alone decided by
 * chance which memories crossed a LIMIT: two stores of the same data, or two runs of the quality
 * bench, fetched different pools and gave different bundles (LoCoMo evidence recall moved by up
 * to 0.9 points between runs of one build). Both orders below follow from the data alone; the
 * id is reached only by exact copies.
 *
 * - MEMORY_TIES, among the newest: the newest `valid_from` (when it became true) first.
 * - MEMORY_TEXT_TIES, among equal text matches: a hash of the content. An equal `ts_rank` says
 *   nothing about which match is wanted, and an order tied to time would fill the hits from one
 *   end of a long history: newest-first gave 71.7 / 80.3 / 85.1% evidence recall at 500 / 1,000 /
 *   2,000 tokens against 73.5 / 81.4 / 86.1% by hash (bench/README.md, round 7).
 */
export const MEMORY_TIES = 'x.valid_from DESC, x.kind, x.content, x.id';
export const MEMORY_TEXT_TIES = 'md5(x.content), x.id';

/** A memories row as the repository reads it (MEMORY_COLUMNS; the embedding only when asked for), checked under test. */
export const MEMORY_ROW = entityRow(MemoryEntity, MEMORY_COLUMNS, ['embedding'] as const);
export type MemoryRow = typeof MEMORY_ROW.row;

/**
 * The columns an operator export reads and an import writes back, in the export's order
 * (MemoriesExportRepository): MEMORY_COLUMNS with the embedding, less the state the service
 * derives again (needs_embedding, origin) and the idempotency key.
 */
export const MEMORY_EXPORT_COLUMNS = [
  'id', 'tenant_id', 'subject_id', 'kind', 'content', 'summary', 'confidence', 'valid_from', 'valid_to', 'source_episode_ids',
  'metadata', 'status', 'embedding', 'attribute_key', 'superseded_by', 'created_at', 'updated_at', 'sensitivity_labels',
] as const satisfies readonly (keyof MemoryEntity)[];

/** A memory as export reads it and import writes it: metadata as JSON text, timestamps as microsecond UTC text. */
export const MEMORY_EXPORT_ROW = asText(entityRow(MemoryEntity, MEMORY_EXPORT_COLUMNS), ['metadata', 'valid_from', 'valid_to', 'created_at', 'updated_at']);
export type MemoryExportRow = typeof MEMORY_EXPORT_ROW.row;
