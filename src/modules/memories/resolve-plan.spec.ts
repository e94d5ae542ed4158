import type { CompilePlan, MemoryDraft } from 'src/compiler/compiler.types';
import { planMemories } from 'src/compiler/memory-plan';
import { resolvePlan } from './resolve-plan';

const day = (n: number): Date => new Date(Date.UTC(2024, 0, n));

function draft(key: string | null, summary: string, at: number, status: MemoryDraft['status'] = 'active', extra: Partial<MemoryDraft> = {}): MemoryDraft {
  return {
    kind: 'profile_fact',
    content: summary,
    summary,
    confidence: 0.9,
    source_episode_ids: [`e${at}`],
    attribute_key: key,
    valid_from: day(at),
    valid_to: status === 'superseded' ? day(at + 1) : null,
    status,
    metadata: {},
    ...extra,
  };
}

const stored = (id: string, key: string | null, kind: MemoryDraft['kind'] = 'profile_fact') => ({ id, kind, attribute_key: key });

describe('resolvePlan', () => {
  it('turns drafts into rows of the subject with fresh ids, no vector and nothing superseding them', () => {
    const { rows, supersessions } = resolvePlan('subj', { drafts: [draft('profile:plan', 'plan: Pro', 1), draft(null, 'likes tea', 2)], supersede: [] }, []);
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row).toMatchObject({ subject_id: 'subj', superseded_by: null, embedding: null, needs_embedding: false, status: 'active' });
    }
    expect(rows.map((r) => [r.summary, r.attribute_key, r.valid_from])).toEqual([
      ['plan: Pro', 'profile:plan', day(1)],
      ['likes tea', null, day(2)],
    ]);
    expect(supersessions).toEqual([]);
  });

  it('points a draft superseded within the batch at the active draft of its kind and key', () => {
    const plan: CompilePlan = { drafts: [draft('profile:plan', 'plan: Free', 1, 'superseded'), draft('profile:plan', 'plan: Pro', 3)], supersede: [] };
    const { rows } = resolvePlan('subj', plan, []);
    expect(rows[0].superseded_by).toBe(rows[1].id);
    expect(rows[1].superseded_by).toBeNull();
  });

  it('without an active draft of the key, points each superseded draft at the next one of that key', () => {
    const plan: CompilePlan = {
      drafts: [draft('profile:plan', 'plan: Free', 1, 'superseded'), draft('profile:plan', 'plan: Pro', 2, 'superseded'), draft('profile:tz', 'tz: UTC', 3, 'superseded')],
      supersede: [],
    };
    const { rows } = resolvePlan('subj', plan, []);
    expect(rows[0].superseded_by).toBe(rows[1].id);
    expect(rows[1].superseded_by).toBeNull();
    expect(rows[2].superseded_by).toBeNull();
  });

  it('takes a compiler that names the replacing draft at its word', () => {
    const plan: CompilePlan = { drafts: [draft(null, 'old wording', 1, 'superseded', { replaced_by_draft: 2 }), draft(null, 'other', 2), draft(null, 'new wording', 3)], supersede: [] };
    const { rows } = resolvePlan('subj', plan, []);
    expect(rows[0].superseded_by).toBe(rows[2].id);
  });

  it('supersedes an existing memory by the named draft, else by the active draft of its kind and key', () => {
    const plan: CompilePlan = {
      drafts: [draft('profile:plan', 'plan: Pro', 5), draft(null, 'likes tea', 5)],
      supersede: [
        { id: 'm-plan', valid_to: day(5) },
        { id: 'm-tea', valid_to: day(5), by_draft: 1 },
      ],
    };
    const { rows, supersessions } = resolvePlan('subj', plan, [stored('m-plan', 'profile:plan'), stored('m-tea', null)]);
    expect(supersessions).toEqual([
      { id: 'm-plan', valid_to: day(5), superseded_by: rows[0].id },
      { id: 'm-tea', valid_to: day(5), superseded_by: rows[1].id },
    ]);
  });

  it('falls back to the last draft of the key when none is active, and to no replacement at all', () => {
    const plan: CompilePlan = {
      drafts: [draft('profile:plan', 'plan: Free', 2, 'superseded'), draft('profile:plan', 'plan: Pro', 3, 'superseded')],
      supersede: [
        { id: 'm-plan', valid_to: day(2) },
        { id: 'm-keyless', valid_to: day(2) },
        { id: 'm-other-kind', valid_to: day(2) },
      ],
    };
    const { rows, supersessions } = resolvePlan('subj', plan, [stored('m-plan', 'profile:plan'), stored('m-keyless', null), stored('m-other-kind', 'profile:plan', 'procedure')]);
    expect(supersessions).toEqual([
      { id: 'm-plan', valid_to: day(2), superseded_by: rows[1].id },
      { id: 'm-keyless', valid_to: day(2), superseded_by: null },
      { id: 'm-other-kind', valid_to: day(2), superseded_by: null },
    ]);
  });

  it('ignores supersessions of memories that were not among the candidates (a compiler may not touch others)', () => {
    const plan: CompilePlan = { drafts: [draft('profile:plan', 'plan: Pro', 5)], supersede: [{ id: 'someone-else', valid_to: day(5), by_draft: 0 }] };
    expect(resolvePlan('subj', plan, [stored('m1', 'profile:plan')]).supersessions).toEqual([]);
  });

  it('ignores a draft index that does not exist', () => {
    const plan: CompilePlan = {
      drafts: [draft(null, 'old', 1, 'superseded', { replaced_by_draft: 7 }), draft('profile:plan', 'plan: Pro', 5)],
      supersede: [{ id: 'm1', valid_to: day(5), by_draft: 9 }],
    };
    const { rows, supersessions } = resolvePlan('subj', plan, [stored('m1', 'profile:plan')]);
    expect(rows[0].superseded_by).toBeNull();
    expect(supersessions).toEqual([{ id: 'm1', valid_to: day(5), superseded_by: rows[1].id }]);
  });

  it('resolves what the heuristic planner decides: a changed fact supersedes the stored one', () => {
    const existing = [{ id: 'm1', kind: 'profile_fact' as const, content: 'plan: Pro', summary: 'plan: Pro', attribute_key: 'profile:plan', valid_from: day(1) }];
    const plan = planMemories(existing, [draft('profile:plan', 'plan: Enterprise', 5)]);
    const { rows, supersessions } = resolvePlan('subj', plan, existing);
    expect(rows.map((r) => [r.summary, r.status])).toEqual([['plan: Enterprise', 'active']]);
    expect(supersessions).toEqual([{ id: 'm1', valid_to: day(5), superseded_by: rows[0].id }]);
  });

  it('points older news at the newer stored memory it is history behind, never at a memory it was not given', () => {
    const existing = [{ id: 'm1', kind: 'profile_fact' as const, content: 'plan: Scale', summary: 'plan: Scale', attribute_key: 'profile:plan', valid_from: day(9) }];
    const plan = planMemories(existing, [draft('profile:plan', 'plan: Starter', 2)]);
    const { rows, supersessions } = resolvePlan('subj', plan, existing);
    expect(rows.map((r) => [r.summary, r.status, r.superseded_by])).toEqual([['plan: Starter', 'superseded', 'm1']]);
    expect(supersessions).toEqual([]);
    const foreign = resolvePlan('subj', { drafts: [draft('profile:plan', 'plan: Starter', 2, 'superseded', { replaced_by_memory: 'elsewhere' })], supersede: [] }, existing);
    expect(foreign.rows[0].superseded_by).toBeNull();
  });
});
