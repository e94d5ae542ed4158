import { countTokens } from 'src/common/text/tokenizer';
import { packContext, PackInput, renderLine } from './packing';
import { ContextLabel, ScoredCandidate } from './ranking';

let nextScore = 100;
function item(id: string, label: ContextLabel, text: string, overrides: Partial<ScoredCandidate> = {}): ScoredCandidate {
  nextScore -= 1;
  return {
    id,
    label,
    text,
    created_at: new Date('2025-03-04T05:06:07Z'),
    valid_to: null,
    session_id: null,
    source_episode_ids: [],
    score: nextScore,
    signals: { kind: 0, recency: 0, relevance: 0, validity: 0 },
    ...overrides,
  };
}

function pack(overrides: Partial<PackInput>): ReturnType<typeof packContext> {
  return packContext({ subjectId: 'user-1', task: 'Help with billing', maxTokens: 4000, ranked: [], ...overrides });
}

describe('packContext', () => {
  it('renders sections in contract order with exact headings, omitting empty ones', () => {
    const result = pack({
      ranked: [
        item('e1', 'raw_episode', 'user: my card was declined', { created_at: new Date('2025-03-02T10:15:00Z') }),
        item('f1', 'profile_fact', 'Name is Juno Marsh'),
        item('s1', 'episode_summary', 'user: asked about invoices', { created_at: new Date('2025-03-01T08:00:00Z') }),
        item('f2', 'profile_fact', 'Prefers email'),
      ],
    });
    expect(result.assembled_context).toBe(
      [
        '## Task',
        'Help with billing',
        '',
        '## About this user',
        '- Name is Juno Marsh',
        '- Prefers email',
        '',
        '## Recent history',
        '### 2025-03-01',
        '- [08:00] user: asked about invoices',
        '',
        '## Recent interactions',
        '### 2025-03-02',
        '- [10:15] user: my card was declined',
        '',
      ].join('\n'),
    );
    expect(result.assembled_context).not.toContain('## Procedures');
    expect(result.included.map((c) => c.id)).toEqual(['f1', 'f2', 's1', 'e1']);
    expect(result.token_estimate).toBe(countTokens(result.assembled_context));
  });

  it('renders only the task when nothing is ranked', () => {
    expect(pack({}).assembled_context).toBe('## Task\nHelp with billing\n');
  });

  it('orders history chronologically and facts and procedures by score', () => {
    const result = pack({
      ranked: [
        item('e-late', 'raw_episode', 'later', { created_at: new Date('2025-03-05T00:00:00Z') }),
        item('p-best', 'procedure', 'Refunds need a manager'),
        item('e-early', 'raw_episode', 'earlier', { created_at: new Date('2025-03-01T00:00:00Z') }),
        item('p-next', 'procedure', 'Check the invoice first'),
      ],
    });
    expect(result.included.map((c) => c.id)).toEqual(['p-best', 'p-next', 'e-early', 'e-late']);
  });

  it('renders current-session episodes and summaries last, under their own subsection', () => {
    const session = { session_id: 'chat-9' };
    const result = pack({
      currentSessionId: 'chat-9',
      ranked: [
        item('now-2', 'raw_episode', 'user: still broken', { ...session, created_at: new Date('2025-03-04T10:01:00Z') }),
        item('fact', 'profile_fact', 'Plan is Pro', session),
        item('now-1', 'episode_summary', 'user: app crashes on login', { ...session, created_at: new Date('2025-03-04T10:00:00Z') }),
      ],
    });
    expect(result.assembled_context).toBe(
      [
        '## Task',
        'Help with billing',
        '',
        '## About this user',
        '- Plan is Pro',
        '',
        '## Recent interactions',
        '',
        '### Current session (chat-9)',
        '- [2025-03-04 10:00 UTC] user: app crashes on login',
        '- [2025-03-04 10:01 UTC] user: still broken',
        '',
      ].join('\n'),
    );
    const withOlder = pack({
      currentSessionId: 'chat-9',
      ranked: [
        item('now', 'raw_episode', 'user: hi again', session),
        item('before', 'raw_episode', 'user: first visit', { session_id: 'chat-1', created_at: new Date('2025-01-01T00:00:00Z') }),
      ],
    }).assembled_context;
    expect(withOlder).toContain('## Recent interactions\n### 2025-01-01 (session chat-1)\n- [00:00] user: first visit\n\n### Current session (chat-9)\n');
    expect(withOlder.match(/## Recent interactions/g)).toHaveLength(1);
  });

  it('folds line breaks inside an item so each item stays one bullet line', () => {
    const line = renderLine(item('f', 'profile_fact', '  multi\n\nline\ttext  '));
    expect(line).toBe('- multi line text\n');
  });

  it('skips an item that does not fit and packs smaller lower-scored ones', () => {
    const big = item('big', 'raw_episode', 'word '.repeat(300));
    const small = item('small', 'raw_episode', 'short note');
    const result = pack({ maxTokens: 80, ranked: [big, small] });
    const ids = result.included.map((c) => c.id);
    expect(ids).toContain('small');
    expect(result.token_estimate).toBeLessThanOrEqual(80);
  });

  it('cuts a lone item that is too long on its own, with a marker', () => {
    const result = pack({ maxTokens: 60, ranked: [item('huge', 'procedure', 'step '.repeat(500))] });
    expect(result.included.map((c) => c.id)).toEqual(['huge']);
    expect(result.assembled_context).toMatch(/- (step )+step …\n$/);
    expect(result.token_estimate).toBeLessThanOrEqual(60);
    expect(result.token_estimate).toBeGreaterThan(50);
  });

  it('cuts a 4,000-character task so that items still get half the budget', () => {
    const task = 'Please look into this. '.repeat(175).slice(0, 4000);
    const result = pack({ task, maxTokens: 300, ranked: [item('f', 'profile_fact', 'Name is Juno')] });
    expect(result.assembled_context).toContain(' …\n');
    expect(result.included.map((c) => c.id)).toEqual(['f']);
    expect(result.token_estimate).toBeLessThanOrEqual(300);
  });

  it('stays within the tiniest budgets', () => {
    const task = 'x'.repeat(4000);
    for (const maxTokens of [1, 2, 3, 5, 8, 13]) {
      for (const ranked of [[], [item('f', 'profile_fact', 'Name is Juno')]]) {
        const result = pack({ task, maxTokens, ranked });
        expect(result.token_estimate).toBeLessThanOrEqual(maxTokens);
        expect(result.token_estimate).toBe(countTokens(result.assembled_context));
      }
    }
  });

  describe('with fuzzed inputs', () => {
    // Deterministic generator (mulberry32) so that a failure reproduces.
    function random(seed: number): () => number {
      let a = seed;
      return () => {
        a = (a + 0x6d2b79f5) | 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }
    const pieces = ['word', ' ', '\n', '\n\n', '## ', '- ', 'über', '東京', '🔴', '🟢🟡', '\t', '...', '1234', 'x'];
    const labels: ContextLabel[] = ['profile_fact', 'procedure', 'episode_summary', 'raw_episode'];

    function fuzzInput(rand: () => number): PackInput {
      const text = (maxPieces: number): string =>
        Array.from({ length: 1 + Math.floor(rand() * maxPieces) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
      const sessions = [null, 's1', 's2'];
      const ranked = Array.from({ length: Math.floor(rand() * 40) }, (_, i) =>
        item(`i${i}`, labels[Math.floor(rand() * labels.length)], text(rand() < 0.1 ? 2000 : 60), {
          session_id: sessions[Math.floor(rand() * sessions.length)],
          created_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(rand() * 1e10)),
        }),
      );
      return {
        subjectId: 'fuzz',
        task: text(rand() < 0.2 ? 1500 : 30).slice(0, 4000),
        maxTokens: 1 + Math.floor(rand() ** 2 * 3000),
        ranked,
        currentSessionId: rand() < 0.5 ? 's1' : null,
      };
    }

    it('never exceeds the budget and reports the exact token count', () => {
      const rand = random(20250601);
      for (let run = 0; run < 150; run += 1) {
        const input = fuzzInput(rand);
        const result = packContext(input);
        expect(result.token_estimate).toBe(countTokens(result.assembled_context));
        expect(result.token_estimate).toBeLessThanOrEqual(input.maxTokens);
        expect(new Set(result.included.map((c) => c.id)).size).toBe(result.included.length);
      }
    });

    it('gives identical output for identical input', () => {
      const rand = random(7);
      for (let run = 0; run < 20; run += 1) {
        const input = fuzzInput(rand);
        expect(packContext(input)).toEqual(packContext(structuredClone(input)));
      }
    });

    it('fills the budget when enough small items are available', () => {
      const ranked = Array.from({ length: 400 }, (_, i) => item(`n${i}`, 'raw_episode', `note number ${i} about the order`));
      const lineTokens = countTokens(renderLine(ranked[0]));
      for (const maxTokens of [100, 500, 1000, 2000]) {
        const result = pack({ maxTokens, ranked });
        expect(result.token_estimate).toBeLessThanOrEqual(maxTokens);
        // Less than one more line would fit: counting lines separately wastes nothing here.
        expect(result.token_estimate).toBeGreaterThan(maxTokens - lineTokens);
      }
    });
  });
});

describe('packContext timeline groups', () => {
  const at = (iso: string) => new Date(iso);

  it('writes one heading per session and date instead of a date on every line', () => {
    const result = pack({
      ranked: [
        item('a2', 'raw_episode', 'Mel: and then?', { session_id: '1', date_label: '1:56 pm on 8 May, 2023', created_at: at('2023-05-08T13:56:01Z'), seq: 2 }),
        item('b1', 'raw_episode', 'Caroline: hello again', { session_id: '2', date_label: '9:00 am on 9 May, 2023', created_at: at('2023-05-09T09:00:00Z'), seq: 3 }),
        item('a1', 'raw_episode', 'Caroline: I went to the lake', { session_id: '1', date_label: '1:56 pm on 8 May, 2023', created_at: at('2023-05-08T13:56:00Z'), seq: 1 }),
      ],
    });
    expect(result.assembled_context).toBe(
      [
        '## Task',
        'Help with billing',
        '',
        '## Recent interactions',
        '### 1:56 pm on 8 May, 2023',
        '- Caroline: I went to the lake',
        '- Mel: and then?',
        '### 9:00 am on 9 May, 2023',
        '- Caroline: hello again',
        '',
      ].join('\n'),
    );
    expect(result.token_estimate).toBe(countTokens(result.assembled_context));
  });

  it('names the session under a UTC day, and keeps two sessions of one date label apart', () => {
    const result = pack({
      ranked: [
        item('u1', 'raw_episode', 'user: card declined', { session_id: 's-42', created_at: at('2026-11-27T09:15:00Z'), seq: 1 }),
        item('u2', 'raw_episode', 'user: still declined', { session_id: 's-43', created_at: at('2026-11-27T10:00:00Z'), seq: 2 }),
        item('l1', 'raw_episode', 'user: hello', { session_id: 'a', date_label: '20 November, 2026', created_at: at('2026-11-27T11:00:00Z'), seq: 3 }),
        item('l2', 'raw_episode', 'user: another chat', { session_id: 'b', date_label: '20 November, 2026', created_at: at('2026-11-27T11:01:00Z'), seq: 4 }),
        item('l3', 'raw_episode', 'user: back in the first', { session_id: 'a', date_label: '20 November, 2026', created_at: at('2026-11-27T11:02:00Z'), seq: 5 }),
      ],
    });
    const body = result.assembled_context.slice(result.assembled_context.indexOf('## Recent interactions'));
    expect(body).toBe(
      [
        '## Recent interactions',
        '### 2026-11-27 (session s-42)',
        '- [09:15] user: card declined',
        '### 2026-11-27 (session s-43)',
        '- [10:00] user: still declined',
        '### 20 November, 2026',
        '- user: hello',
        '- user: back in the first',
        '### 20 November, 2026',
        '- user: another chat',
        '',
      ].join('\n'),
    );
    expect(result.token_estimate).toBe(countTokens(result.assembled_context));
  });

  it('keeps a group together when two sessions interleave in time', () => {
    const result = pack({
      ranked: [
        item('x1', 'raw_episode', 'user: first in x', { session_id: 'x', created_at: at('2025-03-01T08:00:00Z') }),
        item('y1', 'raw_episode', 'user: first in y', { session_id: 'y', created_at: at('2025-03-01T08:01:00Z') }),
        item('x2', 'raw_episode', 'user: second in x', { session_id: 'x', created_at: at('2025-03-01T08:02:00Z') }),
      ],
    });
    expect(result.assembled_context.match(/### /g)).toHaveLength(2);
    expect(result.included.map((c) => c.id)).toEqual(['x1', 'x2', 'y1']);
  });

  it('orders the timeline by the client\'s ISO dates when they disagree with created_at', () => {
    // An older history imported after a newer live episode: arrival order is the reverse of when
    // the messages were written, and the headings show the written dates.
    const result = pack({
      ranked: [
        item('live', 'raw_episode', 'user: the export fails again', { session_id: 's3', date_label: '2026-01-20', recorded_at: at('2026-01-20T00:00:00Z'), created_at: at('2026-01-20T09:00:00Z'), seq: 1 }),
        item('old2', 'raw_episode', 'user: thanks, it works', { session_id: 's1', date_label: '2026-01-06T10:00:00Z', recorded_at: at('2026-01-06T10:00:00Z'), created_at: at('2026-01-21T08:00:00Z'), seq: 3 }),
        item('old1', 'raw_episode', 'user: the export fails', { session_id: 's1', date_label: '2026-01-05T10:00:00Z', recorded_at: at('2026-01-05T10:00:00Z'), created_at: at('2026-01-21T08:00:00Z'), seq: 2 }),
        item('plain', 'raw_episode', 'user: a message without a client date', { session_id: 's2', created_at: at('2026-01-10T12:00:00Z'), seq: 4 }),
      ],
    });
    expect(result.included.map((c) => c.id)).toEqual(['old1', 'old2', 'plain', 'live']);
  });

  it('keeps created_at order for free-text date labels, which are not placed in time', () => {
    const result = pack({
      ranked: [
        item('b', 'raw_episode', 'Mel: later', { session_id: '2', date_label: 'yesterday', created_at: at('2023-05-09T09:00:00Z') }),
        item('a', 'raw_episode', 'Mel: earlier', { session_id: '1', date_label: 'tomorrow', created_at: at('2023-05-08T09:00:00Z') }),
      ],
    });
    expect(result.included.map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('charges a group heading once, so that more lines fit than with a date on each', () => {
    const ranked = Array.from({ length: 60 }, (_, i) =>
      item(`t${i}`, 'raw_episode', `Caroline: a short remark number ${i}`, { session_id: '4', date_label: '1:56 pm on 8 May, 2023', created_at: at(`2023-05-08T13:${String(i).padStart(2, '0')}:00Z`) }),
    );
    const grouped = pack({ maxTokens: 300, ranked });
    const perLine = ranked.map((r) => countTokens(renderLine(r))).reduce((a, b) => a + b, 0) / ranked.length;
    expect(grouped.token_estimate).toBeLessThanOrEqual(300);
    expect(grouped.included.length).toBeGreaterThan(Math.floor(300 / perLine) + 3);
  });
});

describe('renderLine dates', () => {
  it('shows the client’s date label instead of created_at, cut to 64 characters', () => {
    const at = new Date('2025-03-04T05:06:07Z');
    expect(renderLine(item('e', 'raw_episode', 'Mel: hi', { created_at: at, date_label: '1:56 pm on 8 May, 2023' }))).toBe('- [1:56 pm on 8 May, 2023] Mel: hi\n');
    expect(renderLine(item('e', 'raw_episode', 'Mel: hi', { created_at: at, date_label: 'x'.repeat(100) }))).toBe(`- [${'x'.repeat(64)}] Mel: hi\n`);
    expect(renderLine(item('e', 'raw_episode', 'Mel: hi', { created_at: at, date_label: '  ' }))).toBe('- [2025-03-04 05:06 UTC] Mel: hi\n');
    expect(renderLine(item('f', 'profile_fact', 'Likes tea', { date_label: 'today' }))).toBe('- Likes tea\n');
  });

  it('renders episodes of one instant in sequence order', () => {
    const result = pack({ ranked: [item('b', 'raw_episode', 'second', { seq: 2 }), item('a', 'raw_episode', 'first', { seq: 1 })] });
    expect(result.assembled_context.indexOf('first')).toBeLessThan(result.assembled_context.indexOf('second'));
  });
});
