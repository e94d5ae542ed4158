/** Where a time-ordered page of a subject's episodes stopped: the last row's (created_at, seq). */
export interface EpisodeCursor {
  /** created_at as ISO text with microseconds (exact, unlike a JS Date). */
  at: string;
  seq: string;
}

export interface EpisodeRow {
  id: string;
  tenant_id: string | null;
  subject_id: string;
  session_id: string | null;
  source: string;
  type: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  provenance: Record<string, unknown> | null;
  content_text: string;
  created_at: Date;
  last_compiled_at: Date | null;
}

/** The few columns health, SLA and handoff read: no payload, text cut to a bound. */
export interface EpisodeDigestRow {
  id: string;
  session_id: string | null;
  source: string;
  type: string;
  content_text: string;
  created_at: Date;
}

/** What the wire shape needs of a row (reads that serve it skip the derived search text). */
export type EpisodeWireRow = Omit<EpisodeRow, 'content_text'>;

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
