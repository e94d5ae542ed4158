import type { PolicyDenial } from 'src/modules/policy/policy-bundle';
import type { ReceiptBody, SelectedEntry } from 'src/modules/receipts/receipt-body';

/** The structural difference between a receipt and its replay (docs/governance.md, Replay). */
export interface ReplayDiff {
  context_hash: { original: string; replay: string; changed: boolean };
  selected_entries: { added: SelectedEntry[]; removed: SelectedEntry[]; common: number };
  filters_applied: { added: PolicyDenial[]; removed: PolicyDenial[] };
}

/** Entries match by memory or episode id, so a re-ranked entry counts as common. */
function entryKey(e: SelectedEntry): string {
  return e.type === 'memory' ? `m:${e.memory_id}` : `e:${e.episode_id}`;
}

function denialKey(d: PolicyDenial): string {
  return `${d.rule_id}|${d.memory_id}|${d.action}`;
}

function difference<T>(from: readonly T[], to: readonly T[], key: (x: T) => string): { added: T[]; removed: T[]; common: number } {
  const before = new Set(from.map(key));
  const after = new Set(to.map(key));
  return {
    added: to.filter((x) => !before.has(key(x))),
    removed: from.filter((x) => !after.has(key(x))),
    common: to.filter((x) => before.has(key(x))).length,
  };
}

export function diffReceipts(original: ReceiptBody, replay: ReceiptBody): ReplayDiff {
  const entries = difference(original.selected_entries, replay.selected_entries, entryKey);
  const filters = difference(original.policy.filters_applied, replay.policy.filters_applied, denialKey);
  return {
    context_hash: { original: original.output.context_hash, replay: replay.output.context_hash, changed: original.output.context_hash !== replay.output.context_hash },
    selected_entries: entries,
    filters_applied: { added: filters.added, removed: filters.removed },
  };
}
