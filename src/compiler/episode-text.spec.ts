import { conversationMessages, episodeText } from './episode-text';

describe('conversationMessages', () => {
  it('returns role and content of well-formed messages in order', () => {
    const payload = {
      messages: [
        { role: 'user', content: 'My name is Juno Marsh' },
        { role: 'assistant', content: 'Hi Juno!' },
      ],
    };
    expect(conversationMessages(payload)).toEqual([
      { role: 'user', content: 'My name is Juno Marsh' },
      { role: 'assistant', content: 'Hi Juno!' },
    ]);
  });

  it('skips malformed items and keeps the rest', () => {
    const payload = {
      messages: [null, 42, 'text', { role: 1, content: 'x' }, { role: 'user' }, { role: 'user', content: 'ok' }],
    };
    expect(conversationMessages(payload)).toEqual([{ role: 'user', content: 'ok' }]);
  });

  it('joins text parts when content is a list of parts', () => {
    const payload = { messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image' }, 'b'] }] };
    expect(conversationMessages(payload)).toEqual([{ role: 'user', content: 'a\nb' }]);
  });

  it.each([undefined, null, 0, 'messages', [], {}, { messages: 'nope' }, { messages: {} }])(
    'returns an empty list for %p',
    (payload) => {
      expect(conversationMessages(payload)).toEqual([]);
    },
  );
});

describe('episodeText', () => {
  it('renders a conversation as one line per message', () => {
    const payload = {
      messages: [
        { role: 'user', content: 'Hello\n  there' },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: 'Hi!' },
      ],
    };
    expect(episodeText(payload)).toBe('user: Hello there\nassistant: Hi!');
  });

  it('collects text-like fields at any depth and ignores ids and other scalars', () => {
    const payload = {
      id: 'abc-123',
      title: 'Billing question',
      ticket: { priority: 3, body: 'Charged twice', tags: ['billing'], notes: ['first', 'second'] },
    };
    expect(episodeText(payload)).toBe('Billing question\nCharged twice\nfirst\nsecond');
  });

  it('uses a bare string payload as its text', () => {
    expect(episodeText('  just   words ')).toBe('just words');
  });

  it('bounds the output to maxChars', () => {
    const payload = { messages: [{ role: 'user', content: 'x'.repeat(100_000) }] };
    expect(episodeText(payload, 50)).toHaveLength(50);
    expect(episodeText({ text: 'y'.repeat(100_000) }, 10)).toBe('y'.repeat(10));
  });

  it('never cuts an emoji in half', () => {
    const text = episodeText({ text: 'ab😀' }, 3);
    expect(text).toBe('ab');
  });

  it('keeps the line breaks of document text', () => {
    expect(episodeText({ body: 'Steps:\n1. Open  the app\n\n2. Tap Sync' })).toBe('Steps:\n1. Open the app\n2. Tap Sync');
  });

  it('stops at its depth and node bounds', () => {
    let deep: Record<string, unknown> = { text: 'bottom' };
    for (let i = 0; i < 50; i++) deep = { nested: deep };
    expect(episodeText(deep)).toBe('');
    const wide = { items: Array.from({ length: 10_000 }, (_, i) => ({ text: `t${i}` })) };
    expect(episodeText(wide, 100_000).split('\n').length).toBeLessThan(2000);
    // A huge flat array is cut off by the node bound rather than walked (speed lives in bench/, not here).
    expect(typeof episodeText({ items: new Array(5_000_000).fill('x') })).toBe('string');
  });

  it.each([undefined, null, 7, true, [], {}])('returns an empty string for %p', (payload) => {
    expect(episodeText(payload)).toBe('');
  });
});
