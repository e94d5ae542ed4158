import { randomUUID } from 'node:crypto';
import type { CompilePlan, MemoryDraft } from 'src/compiler/compiler.types';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import type { NewMemory, Supersession } from './memories.repository';

const overlapKey = (m: { kind: string; attribute_key: string | null }) => (m.attribute_key === null ? null : `${m.kind}\u0000${m.attribute_key}`);

/**
 * Rows to insert and supersessions to apply for a compile plan. `superseded_by` points at the
 * memory that replaced one: the active draft of the same kind and attribute key, or, for a
 * draft superseded within the batch, the next draft of that key; a compiler that names the
 * replacement itself (`by_draft`, `replaced_by_draft`: the llm compiler) is taken at its word,
 * and a draft kept as history behind a newer stored memory (`replaced_by_memory`) points at it.
 * Supersessions of ids that were not among the active candidates are ignored (a compiler may
 * not touch other memories).
 */
export function resolvePlan(subjectId: string, plan: CompilePlan, existing: readonly Pick<MemoryRow, 'id' | 'kind' | 'attribute_key'>[]): { rows: NewMemory[]; supersessions: Supersession[] } {
  const rows: NewMemory[] = plan.drafts.map((d: MemoryDraft) => ({
    id: randomUUID(),
    subject_id: subjectId,
    kind: d.kind,
    content: d.content,
    summary: d.summary ?? '',
    confidence: d.confidence,
    valid_from: d.valid_from,
    valid_to: d.valid_to,
    source_episode_ids: d.source_episode_ids,
    metadata: d.metadata ?? {},
    status: d.status,
    attribute_key: d.attribute_key,
    superseded_by: null,
    embedding: null,
    needs_embedding: false,
  }));
  const byKey = new Map<string, NewMemory[]>();
  for (const row of rows) {
    const key = overlapKey(row);
    if (key !== null) byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const activeOf = (key: string | null) => (key === null ? undefined : byKey.get(key)?.find((r) => r.status === 'active'));
  const existingById = new Map(existing.map((m) => [m.id, m]));
  plan.drafts.forEach((d, i) => {
    // The compiler named the replacement (llm): take it as said.
    if (d.replaced_by_draft !== undefined && rows[d.replaced_by_draft]) rows[i].superseded_by = rows[d.replaced_by_draft].id;
    // History behind a newer memory of the subject (only one the compile was given).
    else if (d.replaced_by_memory !== undefined && existingById.has(d.replaced_by_memory)) rows[i].superseded_by = d.replaced_by_memory;
  });
  for (const row of rows) {
    if (row.status !== 'superseded' || row.superseded_by !== null) continue;
    const key = overlapKey(row);
    const group = key === null ? [] : byKey.get(key)!;
    row.superseded_by = (activeOf(key) ?? group[group.indexOf(row) + 1])?.id ?? null;
  }
  const supersessions: Supersession[] = [];
  for (const s of plan.supersede) {
    const old = existingById.get(s.id);
    if (!old) continue;
    if (s.by_draft !== undefined && rows[s.by_draft]) {
      supersessions.push({ id: s.id, valid_to: s.valid_to, superseded_by: rows[s.by_draft].id });
      continue;
    }
    const key = overlapKey(old);
    const replacement = activeOf(key) ?? (key === null ? undefined : byKey.get(key)?.at(-1));
    supersessions.push({ id: s.id, valid_to: s.valid_to, superseded_by: replacement?.id ?? null });
  }
  return { rows, supersessions };
}
