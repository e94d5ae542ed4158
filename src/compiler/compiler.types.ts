/**
 * What a compiler reads and returns. In a file of their own so that the heuristic compiler, the
 * supersession planner (memory-plan.ts) and the llm compiler share them without importing one
 * another (issue 18: no import cycles).
 */
import type { MemoryKind } from './memory-kinds';

export interface CompilerEpisode {
  id: string;
  session_id: string | null;
  source: string;
  type: string;
  payload: unknown;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export interface ExistingMemory {
  id: string;
  kind: MemoryKind;
  content: string;
  summary: string;
  attribute_key: string | null;
  valid_from: Date;
}

export interface MemoryDraft {
  kind: MemoryKind;
  content: string;
  summary: string;
  confidence: number;
  source_episode_ids: string[];
  attribute_key: string | null;
  valid_from: Date;
  valid_to: Date | null;
  status: 'active' | 'superseded';
  metadata: Record<string, unknown>;
  /** Index of the later draft of the same compile that replaced this one. */
  replaced_by_draft?: number;
  /** Id of the subject's memory, newer than this draft, that it is history behind (older news). */
  replaced_by_memory?: string;
}

/**
 * Drafts to store and existing memories to supersede. `by_draft` names the draft that replaces
 * a superseded memory when the compiler knows it; without it the pipeline finds the
 * replacement by kind and attribute key.
 */
export interface CompilePlan {
  drafts: MemoryDraft[];
  supersede: { id: string; valid_to: Date; by_draft?: number }[];
}

/**
 * Turns a subject's new episodes into memory drafts and the supersessions of existing memories.
 * It must not use the database. A local compiler (`remote` false) runs inside the compile
 * transaction; a remote one calls a model over the network, so the pipeline runs it before the
 * transaction on a snapshot of at most `maxEpisodesPerCompile` episodes (see CompileService).
 */
export interface MemoryCompiler {
  readonly name: string;
  readonly remote?: boolean;
  readonly maxEpisodesPerCompile?: number;
  compile(episodes: CompilerEpisode[], existing: ExistingMemory[]): Promise<CompilePlan>;
}
