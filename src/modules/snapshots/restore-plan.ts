/**
 * Rows for restoring a snapshot into a subject (contract "Snapshot endpoints", restore rules):
 * - every episode and memory gets a new id; `source_episode_ids` and `superseded_by` follow the
 *   new ids, a reference to something outside the snapshot is kept as it is;
 * - every timestamp moves by one delta, chosen so the newest episode's `created_at` is `now`;
 *   relative offsets (ordering, validity windows, SLA timings) are kept. A snapshot without
 *   episodes anchors its newest memory `created_at` instead, an empty one moves nothing;
 * - episode provenance records `restored_from_snapshot` and `original_episode_id`; memories have
 *   no provenance object, so their metadata records `restored_from_snapshot` and
 *   `original_memory_id`. A snapshot of a restored subject overwrites the older marks: they name
 *   the rows this restore was copied from.
 * Snapshot rows are read in the export item shape, timestamps as text with microseconds
 * (export-document.ts), so the shift is exact.
 */
import {
  type EpisodeItem,
  type EpisodeRow,
  formatTimestampMicros,
  type MemoryItem,
  type MemoryRow,
  parseTimestampMicros,
  toEpisodeRow,
  toMemoryRow,
} from 'src/modules/admin/export-document';

export interface RestoreInput {
  snapshotId: string;
  targetSubjectId: string;
  episodes: readonly EpisodeItem[];
  memories: readonly MemoryItem[];
  now: Date;
  newId: () => string;
}

export interface RestorePlan {
  /** Microseconds added to every timestamp. */
  shiftMicros: bigint;
  episodes: EpisodeRow[];
  memories: MemoryRow[];
}

export function planRestore(input: RestoreInput): RestorePlan {
  const { snapshotId, targetSubjectId } = input;
  const anchors = input.episodes.length > 0 ? input.episodes : input.memories;
  const newest = anchors.reduce<bigint | null>((max, item) => {
    const t = micros(item.created_at);
    return max === null || t > max ? t : max;
  }, null);
  const shiftMicros = newest === null ? 0n : BigInt(input.now.getTime()) * 1000n - newest;
  const shift = (text: string) => formatTimestampMicros(micros(text) + shiftMicros);
  const shiftNullable = (text: string | null) => (text === null ? null : shift(text));

  const episodeIds = new Map(input.episodes.map((e) => [e.id, input.newId()]));
  const memoryIds = new Map(input.memories.map((m) => [m.id, input.newId()]));

  return {
    shiftMicros,
    episodes: input.episodes.map((e) =>
      toEpisodeRow({
        ...e,
        id: episodeIds.get(e.id)!,
        subject_id: targetSubjectId,
        provenance: { ...e.provenance, restored_from_snapshot: snapshotId, original_episode_id: e.id },
        created_at: shift(e.created_at),
        last_compiled_at: shiftNullable(e.last_compiled_at),
      }),
    ),
    memories: input.memories.map((m) =>
      toMemoryRow({
        ...m,
        id: memoryIds.get(m.id)!,
        subject_id: targetSubjectId,
        source_episode_ids: m.source_episode_ids.map((id) => episodeIds.get(id) ?? id),
        superseded_by: m.superseded_by === null ? null : (memoryIds.get(m.superseded_by) ?? m.superseded_by),
        metadata: { ...m.metadata, restored_from_snapshot: snapshotId, original_memory_id: m.id },
        valid_from: shift(m.valid_from),
        valid_to: shiftNullable(m.valid_to),
        created_at: shift(m.created_at),
        updated_at: shift(m.updated_at),
      }),
    ),
  };
}

function micros(text: string): bigint {
  const value = parseTimestampMicros(text);
  if (value === null) throw new Error(`Snapshot row has an unreadable timestamp: ${text}`);
  return value;
}
