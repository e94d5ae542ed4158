/** Stored memory kinds (compat.md). `raw_episode` is only a ranking label in context bundles. */
export const MEMORY_KINDS = ['profile_fact', 'episode_summary', 'procedure', 'artifact_ref'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export function isMemoryKind(kind: string): kind is MemoryKind {
  return (MEMORY_KINDS as readonly string[]).includes(kind);
}

/** Search and context read only `active`; compilation moves overlapped memories to `superseded`. */
export const MEMORY_STATUSES = ['active', 'superseded', 'deleted'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];
