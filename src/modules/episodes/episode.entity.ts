import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EXPRESSION_INDEX, ID, JSON_OBJECT, NOW, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';
import { asText, entityRow } from 'src/common/db/row-shape';

/**
 * Immutable interaction record, as migrations 0001, 0008 and 0010 made it. `content_text` is the
 * payload's text flattened at ingestion; `content_tsv` is derived from it by the database.
 */
@Entity('episodes')
@Index('ix_episodes_subject_created', ['subject_id', 'created_at'])
@Index('ix_episodes_tenant_subject_created', ['tenant_id', 'subject_id', 'created_at'])
@Index('ix_episodes_tenant_subject_session', ['tenant_id', 'subject_id', 'session_id'], { where: 'session_id IS NOT NULL' })
@Index('ix_episodes_uncompiled', ['subject_id', 'seq'], { where: 'last_compiled_at IS NULL' })
@Index('ix_episodes_subject_session_order', ['subject_id', 'session_id', 'created_at', 'seq'], { where: 'session_id IS NOT NULL' })
@Index('ix_episodes_content_tsv', ['content_tsv'], { type: 'gin' })
// Really on ((coalesce(tenant_id, '')), idempotency_key): see EXPRESSION_INDEX.
@Index('ux_episodes_idempotency', ['tenant_id', 'idempotency_key'], { ...EXPRESSION_INDEX, where: 'idempotency_key IS NOT NULL' })
export class EpisodeEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column(NULLABLE_ID) session_id: string | null;
  @Column({ type: 'varchar', length: 256 }) source: string;
  @Column({ type: 'varchar', length: 128 }) type: string;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column(JSON_OBJECT) metadata: Record<string, unknown>;
  @Column(JSON_OBJECT) provenance: Record<string, unknown>;
  @Column(NULLABLE_ID) idempotency_key: string | null;
  @Column({ type: 'text', default: '' }) content_text: string;
  /** Orders episodes created in the same instant (a batch) in request order; pg returns bigint as text. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'BY DEFAULT', insert: false, update: false }) seq: string;
  @Column({ type: 'tsvector', nullable: true, generatedType: 'STORED', asExpression: "to_tsvector('english', content_text)", insert: false, update: false, select: false })
  content_tsv: string | null;
  @Column(NOW) created_at: Date;
  @Column(NULLABLE_TIME) last_compiled_at: Date | null;
}

/**
 * The columns a read of episodes returns, in this order (hot SQL spells its select and RETURNING
 * lists from here): every column but the derived search column, the insertion order and the
 * idempotency key.
 */
export const EPISODE_COLUMNS = [
  'id', 'tenant_id', 'subject_id', 'session_id', 'source', 'type', 'payload', 'metadata', 'provenance', 'content_text', 'created_at', 'last_compiled_at',
] as const satisfies readonly (keyof EpisodeEntity)[];

/** An episodes row as the repository reads it (EPISODE_COLUMNS), checked under test. */
export const EPISODE_ROW = entityRow(EpisodeEntity, EPISODE_COLUMNS);
export type EpisodeRow = typeof EPISODE_ROW.row;

/** The columns ingestion supplies (the tenant is stamped by the data-access layer; the database fills the rest). */
export const NEW_EPISODE_COLUMNS = [
  'id', 'subject_id', 'session_id', 'source', 'type', 'payload', 'metadata', 'provenance', 'idempotency_key', 'content_text',
] as const satisfies readonly (keyof EpisodeEntity)[];

/** An episode to insert (NEW_EPISODE_COLUMNS). */
export type NewEpisode = Pick<EpisodeEntity, (typeof NEW_EPISODE_COLUMNS)[number]>;

/** The few columns health, SLA and handoff read: no payload, text cut to a bound. */
export const EPISODE_DIGEST_ROW = entityRow(EpisodeEntity, ['id', 'session_id', 'source', 'type', 'content_text', 'created_at'] as const);
export type EpisodeDigestRow = typeof EPISODE_DIGEST_ROW.row;

/** What the wire shape needs of a row (reads that serve it skip the derived search text). */
export type EpisodeWireRow = Omit<EpisodeRow, 'content_text'>;

/** EPISODE_COLUMNS less the derived search text: the wire shape's columns. */
export const EPISODE_WIRE_COLUMNS = EPISODE_COLUMNS.filter((c): c is Exclude<(typeof EPISODE_COLUMNS)[number], 'content_text'> => c !== 'content_text');

export const EPISODE_WIRE_ROW = entityRow(EpisodeEntity, EPISODE_WIRE_COLUMNS);

/**
 * The columns an operator export reads and an import writes back, in the export's order
 * (EpisodesExportRepository): the stored episode less what the database derives (search text,
 * insertion order) and the idempotency key, which stays with the tenant that used it.
 */
export const EPISODE_EXPORT_COLUMNS = [
  'id', 'tenant_id', 'subject_id', 'session_id', 'source', 'type', 'payload', 'metadata', 'provenance', 'created_at', 'last_compiled_at',
] as const satisfies readonly (keyof EpisodeEntity)[];

/**
 * An episode as export reads it and import writes it: jsonb as its JSON text and timestamps as
 * microsecond UTC text (`isoformatUtc`), so a document holds exactly what is stored.
 */
export const EPISODE_EXPORT_ROW = asText(entityRow(EpisodeEntity, EPISODE_EXPORT_COLUMNS), ['payload', 'metadata', 'provenance', 'created_at', 'last_compiled_at']);
export type EpisodeExportRow = typeof EPISODE_EXPORT_ROW.row;
