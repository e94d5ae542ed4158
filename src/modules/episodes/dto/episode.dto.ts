import type { EpisodeWireRow } from 'src/modules/episodes/episode.entity';

/** Where a time-ordered page of a subject's episodes stopped: the last row's (created_at, seq). */
export interface EpisodeCursor {
  /** created_at as ISO text with microseconds (exact, unlike a JS Date). */
  at: string;
  seq: string;
}

/** Options of a timeline page: where it continues, its row and byte bounds, and the as-of instant. */
export interface EpisodePageOptions {
  after: EpisodeCursor | null;
  limit: number;
  maxBytes: number;
  asOf?: Date | null;
}

export class EpisodeDto {
  id: string;
  subject_id: string;
  session_id: string | null;
  source: string;
  type: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  provenance: Record<string, unknown>;
  created_at: Date;
  /** Set once compilation has processed the episode. */
  compiled: boolean;
}

export function toEpisodeDto(row: EpisodeWireRow): EpisodeDto {
  return episodeWire(row, row.created_at);
}

/** The wire shape of an episode with `created_at` as given (a Date, or its JSON text). */
function episodeWire<T>(row: EpisodeWireRow, createdAt: T): Omit<EpisodeDto, 'created_at'> & { created_at: T } {
  return {
    id: row.id,
    subject_id: row.subject_id,
    session_id: row.session_id,
    source: row.source,
    type: row.type,
    payload: row.payload,
    metadata: row.metadata ?? {},
    provenance: row.provenance ?? {},
    created_at: createdAt,
    compiled: row.last_compiled_at !== null,
  };
}

/**
 * An episode as ingestion answers it: `toEpisodeDto` with `created_at` already the text that JSON
 * gives a Date (`toJSON` is `toISOString` for a valid date, and a stored row's always is), so the
 * response is byte for byte the same. JSON.stringify calling a Date's toJSON took it off its
 * fast path: serialising a 100-episode batch's answer cost 2.5-4x as much (bench/README.md
 * "Batch ingest cost").
 */
export type EpisodeReply = Omit<EpisodeDto, 'created_at'> & { created_at: string };

export function toEpisodeReply(row: EpisodeWireRow): EpisodeReply {
  return episodeWire(row, row.created_at.toISOString());
}

/** The batch answer as ingestion builds it (EpisodeReply). */
export interface EpisodesBatchReply {
  episodes_created: number;
  episodes: EpisodeReply[];
}

export class EpisodesBatchDto {
  episodes_created: number;
  /** In request order. */
  episodes: EpisodeDto[];
}
