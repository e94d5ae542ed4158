import canonicalize from 'canonicalize';
import type { PolicyDenial, PolicyMode, SkippedRule } from 'src/modules/policy/policy-bundle';
import { LruCache } from 'src/common/lru-cache';
import { sha256Hex } from './signing';

/**
 * The receipt body (docs/governance.md section 1), built from what an assembly selected. Pure
 * but for a cache of provenance hashes: the service adds the id, the signature and the row.
 */

/** How `output.context_hash` is computed: SHA-256 over the UTF-8 bytes of the text as served. */
export const CANONICALIZATION_VERSION = 'utf8-sha256-v1';

export type ReceiptMode = 'retrieval' | 'as_of_replay';

/** One bundle item; every key is present, the ones that do not apply are null. */
export interface SelectedEntry {
  type: 'memory' | 'episode';
  memory_id: string | null;
  kind: string | null;
  valid_from: string | null;
  valid_to: string | null;
  supersession_status: 'active' | 'superseded' | 'tombstoned' | null;
  source_episode_ids: string[] | null;
  provenance_hash: string | null;
  fact_key: string | null;
  conflict_status: 'none' | 'merged' | 'overridden' | 'unresolved' | null;
  episode_id: string | null;
  source: string | null;
  event_type: string | null;
  occurred_at: string | null;
  rank: number;
  score: number | null;
}

export interface EntryMemory {
  id: string;
  kind: string;
  content: string;
  valid_from: Date;
  valid_to: Date | null;
  status: string;
  source_episode_ids: string[] | null;
  attribute_key: string | null;
}

export interface EntryEpisode {
  id: string;
  source: string;
  type: string;
  created_at: Date;
}

/** What replay needs to re-run the request; stored (and signed) with the receipt. */
export interface ReceiptRequest {
  endpoint: 'context' | 'handoff';
  max_tokens: number;
  session_id: string | null;
  caller_id: string | null;
  caller_type: string | null;
  /** Handoff only: the escalation reason. */
  reason: string | null;
}

export interface PolicySnapshot {
  bundle_hash: string | null;
  bundle_yaml: string | null;
  captured_at: string;
}

export interface ReceiptBody {
  receipt_id: string;
  parent_receipt_id: string | null;
  mode: ReceiptMode;
  query_id: string | null;
  task_id: string | null;
  tenant_id: string | null;
  subject_id: string;
  task: string;
  as_of: string;
  created_at: string;
  selected_entries: SelectedEntry[];
  policy: { policy_bundle_hash: string | null; filters_applied: PolicyDenial[]; filters_skipped: SkippedRule[]; mode: PolicyMode };
  output: { context_hash: string; context_size_bytes: number; canonicalization_version: string; token_estimate: number };
  region: string | null;
  request: ReceiptRequest;
  policy_snapshot: PolicySnapshot;
  receipt_signature: string | null;
  receipt_signature_key_id: string | null;
  receipt_signature_algorithm: string | null;
}

/** Hex SHA-256 of a memory's content and source episode ids (JCS of the two). */
export function provenanceHash(content: string, sourceEpisodeIds: readonly string[]): string {
  return sha256Hex(canonicalize({ content, source_episode_ids: [...sourceEpisodeIds] })!);
}

interface KnownProvenance {
  content: string;
  ids: string;
  hash: string;
}

/**
 * Provenance hashes of recently receipted memories, by memory id. A receipt hashes every memory
 * in its bundle, and the bundles of one subject hold mostly the same memories, so this spares
 * canonicalising and hashing them again. An entry answers only while the memory's content and
 * source ids are exactly those it was computed from, so it can never give another hash than
 * provenanceHash would. Bounded by entries and by the characters of content held.
 */
const knownProvenance = new LruCache<string, KnownProvenance>(20_000, { max: 4_000_000, of: (_id, known) => known.content.length + known.ids.length });

function memoryProvenanceHash(m: EntryMemory): string {
  const ids = JSON.stringify(m.source_episode_ids ?? []);
  const known = knownProvenance.get(m.id);
  if (known !== undefined && known.content === m.content && known.ids === ids) return known.hash;
  return knownProvenance.set(m.id, { content: m.content, ids, hash: provenanceHash(m.content, m.source_episode_ids ?? []) }).hash;
}

/**
 * Scores are rounded to 6 decimals: enough to order entries, and a number every JSON stack
 * (jsonb included) writes back the same way, so a stored body re-canonicalises to the same bytes.
 */
function roundScore(score: number | null | undefined): number | null {
  return score === null || score === undefined || !Number.isFinite(score) ? null : Math.round(score * 1e6) / 1e6;
}

const SUPERSESSION: Record<string, SelectedEntry['supersession_status']> = { active: 'active', superseded: 'superseded', tombstoned: 'tombstoned', deleted: 'tombstoned' };

export function memoryEntry(m: EntryMemory, rank: number, score: number | null | undefined): SelectedEntry {
  const status = SUPERSESSION[m.status] ?? 'active';
  return {
    type: 'memory',
    memory_id: m.id,
    kind: m.kind,
    valid_from: m.valid_from.toISOString(),
    valid_to: m.valid_to === null ? null : m.valid_to.toISOString(),
    supersession_status: status,
    source_episode_ids: [...(m.source_episode_ids ?? [])],
    provenance_hash: memoryProvenanceHash(m),
    fact_key: m.attribute_key,
    // Only active memories reach a bundle; a superseded one lost to a newer statement.
    conflict_status: status === 'superseded' ? 'overridden' : 'none',
    episode_id: null,
    source: null,
    event_type: null,
    occurred_at: null,
    rank,
    score: roundScore(score),
  };
}

export function episodeEntry(e: EntryEpisode, rank: number, score: number | null | undefined): SelectedEntry {
  return {
    type: 'episode',
    memory_id: null,
    kind: null,
    valid_from: null,
    valid_to: null,
    supersession_status: null,
    source_episode_ids: null,
    provenance_hash: null,
    fact_key: null,
    conflict_status: null,
    episode_id: e.id,
    source: e.source,
    event_type: e.type,
    occurred_at: e.created_at.toISOString(),
    rank,
    score: roundScore(score),
  };
}

export function contextOutput(text: string, tokenEstimate: number): ReceiptBody['output'] {
  return {
    context_hash: sha256Hex(text),
    context_size_bytes: Buffer.byteLength(text, 'utf8'),
    canonicalization_version: CANONICALIZATION_VERSION,
    token_estimate: tokenEstimate,
  };
}
