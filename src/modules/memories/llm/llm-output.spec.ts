import { InvalidOutputError, parseReply, validateItem, validateReply } from './llm-output';

const ctx = {
  episodes: new Map([
    ['E1', 'ep-1'],
    ['ep-1', 'ep-1'],
    ['E2', 'ep-2'],
  ]),
  memories: new Map([['M1', 'memory:m-1']]),
};
const ok = { kind: 'profile_fact', content: 'My name is Juno.', summary: 'name', confidence: 0.9, source_episode_ids: ['E1'], supersedes_memory_id: null };

describe('parseReply', () => {
  it('reads the memories array of a JSON object, a bare array, fenced JSON and JSON wrapped in prose', () => {
    expect(parseReply('{"memories": [1]}')).toEqual([1]);
    expect(parseReply('[1, 2]')).toEqual([1, 2]);
    expect(parseReply('```json\n{"memories": []}\n```')).toEqual([]);
    expect(parseReply('Here you go: {"memories": [3]} Hope it helps!')).toEqual([3]);
    expect(parseReply('{"items": [4]}')).toEqual([4]);
  });

  it('rejects empty, non-JSON and shapeless replies', () => {
    expect(() => parseReply('  ')).toThrow(InvalidOutputError);
    expect(() => parseReply('not json')).toThrow(/not valid JSON/);
    expect(() => parseReply('{"memories": "x"}')).toThrow(/no "memories" array/);
    expect(() => parseReply('42')).toThrow(/not a JSON object/);
  });
});

describe('validateItem', () => {
  it('accepts a valid item, resolving aliases and real ids, deduplicating sources and clipping the summary', () => {
    const item = validateItem({ ...ok, kind: ' Profile_Fact ', source_episode_ids: ['E1', 'ep-1', 'E2'], supersedes_memory_id: 'M1', summary: 'x'.repeat(500) }, ctx);
    expect(item).toMatchObject({ kind: 'profile_fact', sourceEpisodeIds: ['ep-1', 'ep-2'], supersedes: 'memory:m-1' });
    expect((item as { summary: string }).summary.length).toBeLessThanOrEqual(300);
  });

  it.each([
    [{ ...ok, kind: 'opinion' }, /invalid kind/],
    [{ ...ok, kind: 'artifact_ref' }, /invalid kind/],
    [{ ...ok, content: '  ' }, /empty content/],
    [{ ...ok, content: 'x'.repeat(2001) }, /longer than/],
    [{ ...ok, confidence: 1.5 }, /confidence/],
    [{ ...ok, confidence: '0.9' }, /confidence/],
    [{ ...ok, source_episode_ids: [] }, /no source_episode_ids/],
    [{ ...ok, source_episode_ids: ['E9'] }, /unknown source episode/],
    [{ ...ok, supersedes_memory_id: 'M7' }, /unknown supersedes_memory_id/],
    [{ ...ok, supersedes_memory_id: 3 }, /not a string/],
    ['text', /not an object/],
  ])('rejects %j', (item, reason) => {
    expect(validateItem(item, ctx)).toMatch(reason);
  });

  it('treats an empty or "null" supersedes id as none', () => {
    expect(validateItem({ ...ok, supersedes_memory_id: '' }, ctx)).toMatchObject({ supersedes: null });
    expect(validateItem({ ...ok, supersedes_memory_id: 'null' }, ctx)).toMatchObject({ supersedes: null });
  });
});

describe('validateReply', () => {
  it('keeps valid items and reports each rejected one with its index', () => {
    const reply = validateReply([ok, { ...ok, kind: 'x' }, ok], ctx);
    expect(reply.items).toHaveLength(2);
    expect(reply.rejected).toEqual([{ index: 1, reason: expect.stringContaining('invalid kind') }]);
  });
});
