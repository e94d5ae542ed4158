/**
 * What a replay changed, item by item. The service's diff (POST /v1/receipts/{id}/replay) lists
 * entries added and removed and only counts the ones in both; an entry in both may still have
 * moved or changed (re-ranked, superseded since, a new version of its content). Those are found
 * here by comparing the two receipts' `selected_entries`, matched the way the service matches
 * them (memory id, else episode id).
 */

/** A receipt's selected entry, as GET /v1/receipts/{id} answers it (the fields compared). */
export interface SelectedEntry {
  type: 'memory' | 'episode';
  memory_id: string | null;
  episode_id: string | null;
  kind: string | null;
  source?: string | null;
  event_type?: string | null;
  rank: number;
  score: number | null;
  supersession_status: string | null;
  valid_to: string | null;
  provenance_hash: string | null;
  conflict_status: string | null;
}

export interface PolicyFilter {
  rule_id: string;
  memory_id: string;
  labels: string[];
  action: string;
}

export interface ReplayResult {
  original_receipt_id: string;
  replay_receipt_id: string;
  as_of: string;
  diff: {
    context_hash: { original: string; replay: string; changed: boolean };
    selected_entries: { added: SelectedEntry[]; removed: SelectedEntry[]; common: number };
    filters_applied: { added: PolicyFilter[]; removed: PolicyFilter[] };
    as_of_applied: boolean;
    note: string | null;
  };
}

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export interface ChangedEntry {
  entry: SelectedEntry;
  changes: FieldChange[];
}

/** The fields whose change a reader cares about, in the order shown. */
const COMPARED = ['rank', 'score', 'supersession_status', 'valid_to', 'conflict_status', 'provenance_hash'] as const;

export function entryKey(e: SelectedEntry): string {
  return e.type === 'memory' ? `m:${e.memory_id}` : `e:${e.episode_id}`;
}

/** A short name for an entry: receipts hold ids and hashes, not the text. */
export function entryLabel(e: SelectedEntry): string {
  if (e.type === 'memory') return `memory ${e.kind ?? ''} ${(e.memory_id ?? '').slice(0, 8)}`.replace(/\s+/g, ' ');
  return `episode ${[e.source, e.event_type].filter(Boolean).join('/')} ${(e.episode_id ?? '').slice(0, 8)}`.replace(/\s+/g, ' ');
}

function shown(field: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (field === 'provenance_hash' && typeof v === 'string') return `${v.slice(0, 12)}…`;
  if (typeof v === 'number' && !Number.isInteger(v)) return v.toFixed(2);
  return String(v);
}

/** Entries in both receipts whose compared fields differ, in the replay's order. */
export function changedEntries(original: readonly SelectedEntry[], replay: readonly SelectedEntry[]): ChangedEntry[] {
  const before = new Map(original.map((e) => [entryKey(e), e]));
  const out: ChangedEntry[] = [];
  for (const after of replay) {
    const was = before.get(entryKey(after));
    if (!was) continue;
    const changes = COMPARED.filter((f) => shown(f, was[f]) !== shown(f, after[f])).map((f) => ({ field: f, before: shown(f, was[f]), after: shown(f, after[f]) }));
    if (changes.length > 0) out.push({ entry: after, changes });
  }
  return out;
}
