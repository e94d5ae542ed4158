import type { ExistingMemory, MemoryDraft } from './compiler.types';
import { planMemories, restatedMemories } from './memory-plan';

const day = (n: number): Date => new Date(Date.UTC(2024, 0, n));

function fact(episode: string, at: number, key: string | null, summary: string, content = summary): MemoryDraft {
  return {
    kind: 'profile_fact',
    content,
    summary,
    confidence: 0.9,
    source_episode_ids: [episode],
    attribute_key: key,
    valid_from: day(at),
    valid_to: null,
    status: 'active',
    metadata: { compiler: 'heuristic-1' },
  };
}

function known(id: string, at: number, key: string | null, summary: string, content = summary): ExistingMemory {
  return { id, kind: 'profile_fact', content, summary, attribute_key: key, valid_from: day(at) };
}

describe('planMemories', () => {
  it('supersedes an existing memory with the same kind and key', () => {
    const plan = planMemories([known('m1', 1, 'profile:plan', 'plan: Pro')], [fact('e2', 5, 'profile:plan', 'plan: Enterprise')]);
    expect(plan.supersede).toEqual([{ id: 'm1', valid_to: day(5), by_draft: 0 }]);
    expect(plan.drafts).toHaveLength(1);
    expect(plan.drafts[0].status).toBe('active');
    expect(plan.drafts[0].metadata.supersedes).toEqual(['m1']);
  });

  it('supersedes an older draft of the same batch', () => {
    const plan = planMemories([], [fact('e1', 1, 'profile:plan', 'plan: Pro'), fact('e2', 5, 'profile:plan', 'plan: Enterprise')]);
    expect(plan.drafts.map((d) => [d.summary, d.status, d.valid_to])).toEqual([
      ['plan: Pro', 'superseded', day(5)],
      ['plan: Enterprise', 'active', null],
    ]);
    expect(plan.supersede).toEqual([]);
  });

  it('keeps a value that comes back after a change as a new memory', () => {
    const plan = planMemories(
      [],
      [fact('e1', 1, 'profile:plan', 'plan: Pro'), fact('e2', 2, 'profile:plan', 'plan: Enterprise'), fact('e3', 3, 'profile:plan', 'plan: Pro')],
    );
    expect(plan.drafts.map((d) => d.status)).toEqual(['superseded', 'superseded', 'active']);
  });

  it('supersedes a known fact with its restatement, which leaves a visible history', () => {
    const plan = planMemories([known('m1', 1, 'profile:name', 'name: Juno Marsh')], [fact('e2', 2, 'profile:name', 'Name: juno marsh!', 'I am Juno Marsh')]);
    expect(plan.supersede).toEqual([{ id: 'm1', valid_to: day(2), by_draft: 0 }]);
    expect(plan.drafts).toMatchObject([{ content: 'I am Juno Marsh', status: 'active', metadata: { supersedes: ['m1'] } }]);
  });

  it('sees the same value in other words as a restatement', () => {
    const plan = planMemories([known('m1', 1, 'preference:danc', 'likes: dancing')], [fact('e2', 2, 'preference:danc', 'likes: all dances')]);
    expect(plan.supersede.map((s) => s.id)).toEqual(['m1']);
  });

  it('supersedes a draft restated by a later episode of the same batch', () => {
    const plan = planMemories([], [fact('e1', 1, 'profile:name', 'name: Juno'), fact('e2', 2, 'profile:name', 'name: Juno')]);
    expect(plan.drafts.map((d) => [d.source_episode_ids, d.status, d.valid_to, d.replaced_by_draft])).toEqual([
      [['e1'], 'superseded', day(2), 1],
      [['e2'], 'active', null, undefined],
    ]);
  });

  it('keeps one memory for a statement repeated within the same episode', () => {
    const plan = planMemories([], [fact('e1', 1, 'profile:name', 'name: Juno'), fact('e1', 1, 'profile:name', 'name: Juno', 'Juno, I said')]);
    expect(plan.drafts).toHaveLength(1);
  });

  it('keeps an older restatement than the known memory as history', () => {
    const plan = planMemories([known('m1', 10, 'profile:name', 'name: Juno')], [fact('e0', 3, 'profile:name', 'name: Juno')]);
    expect(plan.supersede).toEqual([]);
    expect(plan.drafts[0]).toMatchObject({ status: 'superseded', valid_to: day(10), replaced_by_memory: 'm1' });
  });

  it('treats the same content of the same kind as a restatement unless both keys differ', () => {
    const sameContent = planMemories([known('m1', 1, null, 'anything', 'My name is Juno')], [fact('e2', 2, 'profile:name', 'name: Juno', 'My name is Juno')]);
    expect(sameContent.supersede.map((s) => s.id)).toEqual(['m1']);
    const twoFacts = planMemories(
      [],
      [fact('e1', 1, 'profile:role', 'role: CTO', "I'm the CTO at Initech"), fact('e1', 1, 'profile:company', 'company: Initech', "I'm the CTO at Initech")],
    );
    expect(twoFacts.drafts.map((d) => d.status)).toEqual(['active', 'active']);
  });

  it('never lets null keys overlap', () => {
    const plan = planMemories([known('m1', 1, null, 'note one')], [fact('e2', 2, null, 'note two')]);
    expect(plan.supersede).toEqual([]);
    expect(plan.drafts[0].status).toBe('active');
  });

  it('does not let different kinds overlap', () => {
    const existing: ExistingMemory = { ...known('m1', 1, 'procedure:export data', 'how to export'), kind: 'procedure' };
    const plan = planMemories([existing], [fact('e2', 2, 'procedure:export data', 'how to export (2 steps)')]);
    expect(plan.supersede).toEqual([]);
  });

  it('stores older news than an active memory as already superseded', () => {
    const plan = planMemories([known('m1', 10, 'profile:plan', 'plan: Enterprise')], [fact('e0', 3, 'profile:plan', 'plan: Pro')]);
    expect(plan.supersede).toEqual([]);
    expect(plan.drafts[0]).toMatchObject({ status: 'superseded', valid_to: day(10), replaced_by_memory: 'm1' });
  });

  it('keeps older news behind the earliest of several newer memories of the key', () => {
    const plan = planMemories(
      [known('m1', 20, 'profile:plan', 'plan: Enterprise'), known('m2', 10, 'profile:plan', 'plan: Business', 'We moved to Business')],
      [fact('e0', 3, 'profile:plan', 'plan: Pro')],
    );
    expect(plan.drafts[0]).toMatchObject({ status: 'superseded', valid_to: day(10), replaced_by_memory: 'm2' });
  });

  describe('restatedMemories', () => {
    const summary = (episode: string, at: number, content: string): MemoryDraft => ({ ...fact(episode, at, null, content), kind: 'episode_summary' });
    const stored = (id: string, at: number, content: string): ExistingMemory => ({ ...known(id, at, null, content), kind: 'episode_summary' });

    it('supersedes stored memories whose content an active draft restates, in any case or spacing', () => {
      const plan = restatedMemories({ drafts: [summary('e2', 5, 'user: I prefer tea.')], supersede: [] }, [stored('s1', 1, 'User:  i prefer tea')]);
      expect(plan.supersede).toEqual([{ id: 's1', valid_to: day(5), by_draft: 0 }]);
      expect(plan.drafts[0]).toMatchObject({ status: 'active', metadata: { supersedes: ['s1'] } });
    });

    it('keeps a draft older than the memory it restates as history, and ignores other kinds and contents', () => {
      const plan = restatedMemories({ drafts: [summary('e0', 1, 'user: hi'), fact('e1', 9, null, 'user: bye')], supersede: [] }, [
        stored('s1', 5, 'user: hi'),
        stored('s2', 5, 'user: bye'),
      ]);
      expect(plan.supersede).toEqual([]);
      expect(plan.drafts.map((d) => [d.status, d.valid_to, d.replaced_by_memory])).toEqual([
        ['superseded', day(5), 's1'],
        ['active', null, undefined],
      ]);
    });
  });
});
