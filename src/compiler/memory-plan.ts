/**
 * Conflict resolution of compilation: which drafts are new, which restate something known,
 * and which replace an older memory (the older one is superseded).
 *
 * Overlap: same kind and same non-null attribute_key. Restatement: same kind, attribute keys
 * not different non-null values, and either the same normalised summary under the same key
 * (stems, no articles: "likes: Dance" = "likes: dancing") or the same normalised content.
 * Both are resolved the same way (compat.md, "Supersession": restating leaves a visible
 * history): the memory with the later valid_from stays active; the other gets status
 * `superseded` and valid_to = the newer one's valid_from. A restatement drawn from the same
 * episodes as a draft of this batch (a customer repeating themselves within one conversation)
 * is the same statement: it creates nothing.
 *
 * Episode summaries are not among the active memories a compile reads (one per episode, so
 * many); the pipeline looks up the few whose content the new drafts restate and applies
 * `restatedMemories` after planning.
 */
import { comparable, normalisedValue } from './compiler-text';
import type { CompilePlan, ExistingMemory, MemoryDraft } from './compiler.types';

interface Entry {
  kind: string;
  key: string | null;
  summary: string;
  content: string;
  validFrom: Date;
  active: boolean;
  existingId: string | null;
  draft: MemoryDraft | null;
}

function isDuplicate(known: Entry, candidate: Entry): boolean {
  if (known.kind !== candidate.kind) return false;
  if (known.key !== null && candidate.key !== null && known.key !== candidate.key) return false;
  if (known.key !== null && known.key === candidate.key && known.summary === candidate.summary) return true;
  return known.content === candidate.content;
}

function entryOf(draft: MemoryDraft): Entry {
  return {
    kind: draft.kind,
    key: draft.attribute_key,
    summary: normalisedValue(draft.summary),
    content: comparable(draft.content),
    validFrom: draft.valid_from,
    active: draft.status === 'active',
    existingId: null,
    draft,
  };
}

/** Active entries looked up by content and by attribute key, so each candidate costs O(1) lookups. */
class EntryIndex {
  private readonly byContent = new Map<string, Entry[]>();
  private readonly byKey = new Map<string, Entry[]>();

  add(entry: Entry): void {
    push(this.byContent, `${entry.kind}\u0000${entry.content}`, entry);
    if (entry.key !== null) push(this.byKey, `${entry.kind}\u0000${entry.key}`, entry);
  }

  duplicateOf(candidate: Entry): Entry | undefined {
    const sameContent = this.byContent.get(`${candidate.kind}\u0000${candidate.content}`) ?? [];
    const sameKey = candidate.key === null ? [] : (this.byKey.get(`${candidate.kind}\u0000${candidate.key}`) ?? []);
    return [...sameContent, ...sameKey].find((known) => known.active && isDuplicate(known, candidate));
  }

  rivalsOf(candidate: Entry): Entry[] {
    if (candidate.key === null) return [];
    return (this.byKey.get(`${candidate.kind}\u0000${candidate.key}`) ?? []).filter((known) => known.active);
  }
}

function push<T>(map: Map<string, T[]>, key: string, entry: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [entry]);
  else list.push(entry);
}

/**
 * Applies candidates, in chronological order, on top of the subject's active memories.
 * Returns the drafts to store (superseded ones included, with their valid_to) and the
 * existing memories to supersede.
 */
export function planMemories(existing: ExistingMemory[], candidates: MemoryDraft[]): CompilePlan {
  const index = new EntryIndex();
  for (const m of existing) {
    index.add({
      kind: m.kind,
      key: m.attribute_key,
      summary: normalisedValue(m.summary),
      content: comparable(m.content),
      validFrom: m.valid_from,
      active: true,
      existingId: m.id,
      draft: null,
    });
  }
  const drafts: MemoryDraft[] = [];
  const supersede = new Map<string, { valid_to: Date; by_draft: number }>();

  for (const candidate of candidates) {
    const entry = entryOf(candidate);
    const duplicate = index.duplicateOf(entry);
    if (duplicate?.draft != null && sameSources(duplicate.draft, candidate)) continue;
    const rivals = [...new Set([...(duplicate === undefined ? [] : [duplicate]), ...index.rivalsOf(entry)])];
    const newer = rivals.filter((known) => known.validFrom.getTime() > entry.validFrom.getTime());
    if (newer.length > 0) {
      // Older news than what is known (e.g. imported history, or a memory remembered while this
      // compile ran): keep it as history only, behind the earliest newer one.
      const next = newer.reduce((a, b) => (b.validFrom.getTime() < a.validFrom.getTime() ? b : a));
      candidate.status = 'superseded';
      candidate.valid_to = next.validFrom;
      replacedBy(candidate, next, drafts);
      entry.active = false;
    } else {
      for (const rival of rivals) retire(rival, entry.validFrom, supersede, candidate, drafts.length);
    }
    index.add(entry);
    drafts.push(candidate);
  }
  return { drafts, supersede: [...supersede].map(([id, s]) => ({ id, ...s })) };
}

/**
 * Existing memories that active drafts restate (same kind, same normalised content), to
 * supersede: for the kinds a compile does not read in full (episode summaries). A draft older
 * than the memory it restates is kept as history instead, like older news in planMemories.
 */
export function restatedMemories(plan: CompilePlan, restated: readonly ExistingMemory[]): CompilePlan {
  const pending = new Map<string, ExistingMemory[]>();
  const already = new Set(plan.supersede.map((s) => s.id));
  for (const m of restated) if (!already.has(m.id)) push(pending, `${m.kind}\u0000${comparable(m.content)}`, m);
  const supersede = [...plan.supersede];
  plan.drafts.forEach((draft, i) => {
    if (draft.status !== 'active') return;
    const key = `${draft.kind}\u0000${comparable(draft.content)}`;
    const known = pending.get(key);
    if (known === undefined) return;
    pending.delete(key);
    const newest = known.reduce((a, b) => (b.valid_from.getTime() > a.valid_from.getTime() ? b : a));
    if (newest.valid_from.getTime() > draft.valid_from.getTime()) {
      draft.status = 'superseded';
      draft.valid_to = newest.valid_from;
      draft.replaced_by_memory = newest.id;
      return;
    }
    for (const m of known) supersede.push({ id: m.id, valid_to: draft.valid_from, by_draft: i });
    addSupersedes(draft, known.map((m) => m.id));
  });
  return { drafts: plan.drafts, supersede };
}

/** Points a draft kept as history at what it is history behind: a stored memory, or a draft of this plan. */
function replacedBy(draft: MemoryDraft, next: Entry, drafts: readonly MemoryDraft[]): void {
  if (next.existingId !== null) {
    draft.replaced_by_memory = next.existingId;
    return;
  }
  const index = next.draft === null ? -1 : drafts.indexOf(next.draft);
  if (index >= 0) draft.replaced_by_draft = index;
}

function retire(rival: Entry, at: Date, supersede: Map<string, { valid_to: Date; by_draft: number }>, by: MemoryDraft, byDraft: number): void {
  rival.active = false;
  if (rival.draft !== null) {
    rival.draft.status = 'superseded';
    rival.draft.valid_to = at;
    rival.draft.replaced_by_draft = byDraft;
  } else if (rival.existingId !== null) {
    supersede.set(rival.existingId, { valid_to: at, by_draft: byDraft });
    addSupersedes(by, [rival.existingId]);
  }
}

/** `metadata.supersedes`: the ids of the stored memories a draft replaces, for readers of one memory. */
function addSupersedes(draft: MemoryDraft, ids: string[]): void {
  const known = Array.isArray(draft.metadata.supersedes) ? (draft.metadata.supersedes as string[]) : [];
  draft.metadata.supersedes = [...known, ...ids.filter((id) => !known.includes(id))];
}

/** Drawn from episodes the earlier draft already cites: the same statement, not a restatement. */
function sameSources(earlier: MemoryDraft, candidate: MemoryDraft): boolean {
  return candidate.source_episode_ids.every((id) => earlier.source_episode_ids.includes(id));
}
