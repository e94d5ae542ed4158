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
  return {
    id: row.id,
    subject_id: row.subject_id,
    session_id: row.session_id,
    source: row.source,
    type: row.type,
    payload: row.payload,
    metadata: row.metadata ?? {},
    provenance: row.provenance ?? {},
    created_at: row.created_at,
    compiled: row.last_compiled_at !== null,
  };
}

export class EpisodesBatchDto {
  episodes_created: number;
  /** In request order. */
  episodes: EpisodeDto[];
}
