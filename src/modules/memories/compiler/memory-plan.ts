/**
 * Conflict resolution of compilation: which drafts are new, which restate something known
 * (dropped), and which replace an older memory (the older one is superseded).
 *
 * Overlap: same kind and same non-null attribute_key. The memory with the later valid_from
 * stays active; the other gets status `superseded` and valid_to = the newer one's valid_from.
 * Duplicate: same kind, attribute keys not different non-null values, and either the same
 * normalised summary under the same key (stems, no articles: "likes: Dance" = "likes: dancing")
 * or the same normalised content. A duplicate creates
 * nothing; within one batch its episodes are added to the earlier draft's provenance.
 */
import { comparable, normalisedValue } from './compiler-text';
import type { CompilePlan, ExistingMemory, MemoryDraft } from './heuristic-compiler';

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

function push(map: Map<string, Entry[]>, key: string, entry: Entry): void {
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
  const supersede = new Map<string, Date>();

  for (const candidate of candidates) {
    const entry = entryOf(candidate);
    const duplicate = index.duplicateOf(entry);
    if (duplicate !== undefined) {
      if (duplicate.draft !== null) mergeProvenance(duplicate.draft, candidate);
      continue;
    }
    const rivals = index.rivalsOf(entry);
    const newer = rivals.filter((known) => known.validFrom.getTime() > entry.validFrom.getTime());
    if (newer.length > 0) {
      // Older news than what is known (e.g. imported history): keep it as history only.
      candidate.status = 'superseded';
      candidate.valid_to = new Date(Math.min(...newer.map((known) => known.validFrom.getTime())));
      entry.active = false;
    } else {
      for (const rival of rivals) retire(rival, entry.validFrom, supersede, candidate);
    }
    index.add(entry);
    drafts.push(candidate);
  }
  return { drafts, supersede: [...supersede].map(([id, valid_to]) => ({ id, valid_to })) };
}

function retire(rival: Entry, at: Date, supersede: Map<string, Date>, by: MemoryDraft): void {
  rival.active = false;
  if (rival.draft !== null) {
    rival.draft.status = 'superseded';
    rival.draft.valid_to = at;
  } else if (rival.existingId !== null) {
    supersede.set(rival.existingId, at);
    const ids = Array.isArray(by.metadata.supersedes) ? (by.metadata.supersedes as string[]) : [];
    by.metadata.supersedes = [...ids, rival.existingId];
  }
}

function mergeProvenance(target: MemoryDraft, restated: MemoryDraft): void {
  for (const id of restated.source_episode_ids) {
    if (!target.source_episode_ids.includes(id)) target.source_episode_ids.push(id);
  }
}
