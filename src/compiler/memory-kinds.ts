/** Stored memory kinds (compat.md). `raw_episode` is only a ranking label in context bundles. */
export const MEMORY_KINDS = ['profile_fact', 'episode_summary', 'procedure', 'artifact_ref'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export function isMemoryKind(kind: string): kind is MemoryKind {
  return (MEMORY_KINDS as readonly string[]).includes(kind);
}

/**
 * Search and context read only `active`; compilation and corrections move replaced memories to
 * `superseded`; forgetting one leaves a `tombstoned` row (content erased, id, kind and times kept)
 * so receipts that cite it still resolve.
 */
export const MEMORY_STATUSES = ['active', 'superseded', 'deleted', 'tombstoned'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

/** Where a memory came from: compiled from episodes, or written directly over the API (no source episode). */
export const MEMORY_ORIGINS = ['compile', 'api'] as const;
export type MemoryOrigin = (typeof MEMORY_ORIGINS)[number];
