import { SummaryMessage, isFiller, summariseConversation, summariseText } from './episode-summary';

const msg = (role: string, side: SummaryMessage['side'], content: string, salient = false): SummaryMessage => ({
  role,
  side,
  content,
  salient,
});

describe('summariseConversation', () => {
  it('opens with the first meaningful message as "role: text"', () => {
    const summary = summariseConversation([
      msg('system', 'system', 'You are a helpful agent.'),
      msg('assistant', 'agent', 'Hi! Thanks for contacting Acme. How can I help you today?'),
      msg('user', 'subject', 'Hello'),
      msg('user', 'subject', 'My name is Juno Marsh and my invoices fail to download.', true),
    ]);
    expect(summary?.content.startsWith('user: My name is Juno Marsh and my invoices fail to download.')).toBe(true);
    expect(summary?.summary).toBe('3 messages; user: My name is Juno Marsh and my invoices fail to download.');
  });

  it('adds telling later messages in conversation order within the budget', () => {
    const summary = summariseConversation(
      [
        msg('user', 'subject', 'My printer will not connect to Wi-Fi.'),
        msg('assistant', 'agent', 'Try restarting the router, then re-add the printer.'),
        msg('user', 'subject', 'ok one sec'),
        msg('user', 'subject', 'That worked, thanks!', true),
      ],
      400,
    );
    expect(summary?.content).toBe(
      'user: My printer will not connect to Wi-Fi. … assistant: Try restarting the router, then re-add the printer. … user: That worked, thanks!',
    );
  });

  it('stays within maxChars for long messages', () => {
    const long = 'word '.repeat(500);
    const summary = summariseConversation([msg('user', 'subject', long), msg('assistant', 'agent', long)], 400);
    expect(summary?.content.length).toBeLessThanOrEqual(400);
    expect(summary?.content.startsWith('user: word word')).toBe(true);
  });

  it('falls back to the first message when all are filler, and to null without text', () => {
    expect(summariseConversation([msg('Caroline', 'subject', 'Hey Mel!')])?.content).toBe('Caroline: Hey Mel!');
    expect(summariseConversation([msg('user', 'subject', '   ')])).toBeNull();
    expect(summariseConversation([])).toBeNull();
  });
});

describe('isFiller', () => {
  it('recognises greetings, thanks and agent openers', () => {
    expect(isFiller('Thanks so much!', 'subject')).toBe(true);
    expect(isFiller('Hi there', 'subject')).toBe(true);
    expect(isFiller('Hello, how can I help you today?', 'agent')).toBe(true);
    expect(isFiller('Hi, my card was charged twice', 'subject')).toBe(false);
  });
});

describe('summariseText', () => {
  it('labels the text and bounds it', () => {
    expect(summariseText('note', 'Customer called about billing. Wants a refund.')).toEqual({
      content: 'note: Customer called about billing. Wants a refund.',
      summary: 'note: Customer called about billing.',
    });
    expect(summariseText('note', 'x '.repeat(1000), 100)?.content.length).toBeLessThanOrEqual(100);
    expect(summariseText('note', ' ')).toBeNull();
  });
});
