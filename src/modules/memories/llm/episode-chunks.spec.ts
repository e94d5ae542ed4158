import { countTokens } from 'src/common/text/tokenizer';
import type { CompilerEpisode } from 'src/compiler/compiler.types';
import { chunkEpisodes, pickMemories } from './episode-chunks';

const episode = (id: string, text: string): CompilerEpisode => ({
  id,
  session_id: null,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: text }] },
  metadata: {},
  created_at: new Date('2025-01-01T00:00:00Z'),
});

describe('chunkEpisodes', () => {
  it('packs episodes in order into chunks within the token budget, aliases restarting per chunk', () => {
    const words = (n: number) => 'lorem ipsum '.repeat(n);
    const chunks = chunkEpisodes([episode('a', words(60)), episode('b', words(60)), episode('c', words(10))], 300);
    expect(chunks.map((c) => c.episodes.map((e) => [e.episode.id, e.prompt.alias]))).toEqual([[['a', 'E1']], [['b', 'E1'], ['c', 'E2']]]);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(300);
    expect(chunks[0].episodes[0].prompt.text).toMatch(/^user: lorem ipsum/);
    expect(chunks[0].episodes[0].prompt.header).toContain('source=user type=conversation');
  });

  it('cuts an episode longer than a chunk instead of dropping it', () => {
    const [chunk] = chunkEpisodes([episode('big', 'word '.repeat(5000))], 500);
    expect(chunk.episodes[0].prompt.text).toContain('[… episode cut to fit the request]');
    expect(countTokens(chunk.episodes[0].prompt.text)).toBeLessThanOrEqual(500);
  });

  it('renders a payload without text as its JSON', () => {
    const [chunk] = chunkEpisodes([{ ...episode('j', ''), payload: { order_id: 7 } }], 500);
    expect(chunk.episodes[0].prompt.text).toBe('{"order_id":7}');
  });
});

describe('pickMemories', () => {
  it('shows memories in the given order until the budget or the count is spent', () => {
    const known = ['a', 'b', 'c'].map((x) => ({ ref: `memory:${x}`, kind: 'profile_fact', content: `fact ${x}` }));
    const all = pickMemories(known, 1000, 10);
    expect(all.prompt.map((m) => m.alias)).toEqual(['M1', 'M2', 'M3']);
    expect(all.refs.get('M2')).toBe('memory:b');
    expect(pickMemories(known, 1000, 2).prompt).toHaveLength(2);
    expect(pickMemories(known, 12, 10).prompt).toHaveLength(1);
  });
});
