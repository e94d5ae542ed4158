import { HEURISTIC_COMPILER_VERSION, compileHeuristic } from './heuristic-compiler';
import type { CompilePlan, CompilerEpisode, ExistingMemory, MemoryDraft } from './compiler.types';
import { restatedMemories } from './memory-plan';

const T0 = Date.UTC(2024, 2, 1, 9, 0, 0);
const HOUR = 3_600_000;

let counter = 0;
function chat(messages: [string, string][], hoursAfterStart: number, sessionId: string | null = null): CompilerEpisode {
  counter += 1;
  return {
    id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    session_id: sessionId,
    source: 'support-chat',
    type: 'conversation',
    payload: { messages: messages.map(([role, content]) => ({ role, content })) },
    metadata: {},
    created_at: new Date(T0 + hoursAfterStart * HOUR),
  };
}

function episode(payload: unknown, overrides: Partial<CompilerEpisode> = {}): CompilerEpisode {
  counter += 1;
  return {
    id: `ep-${counter}`,
    session_id: null,
    source: 'manual_input',
    type: 'note',
    payload,
    metadata: {},
    created_at: new Date(T0),
    ...overrides,
  };
}

const ofKind = (plan: CompilePlan, kind: MemoryDraft['kind']): MemoryDraft[] => plan.drafts.filter((d) => d.kind === kind);
const active = (drafts: MemoryDraft[]): MemoryDraft[] => drafts.filter((d) => d.status === 'active');
const bySummary = (plan: CompilePlan, summary: string): MemoryDraft | undefined => plan.drafts.find((d) => d.summary === summary);

/** The memories a store would hold after applying the plan: for chaining compile runs. */
function applied(existing: ExistingMemory[], plan: CompilePlan, prefix: string): ExistingMemory[] {
  const retired = new Set(plan.supersede.map((s) => s.id));
  return [
    ...existing.filter((m) => !retired.has(m.id)),
    ...plan.drafts
      .filter((d) => d.status === 'active')
      .map((d, i) => ({ id: `${prefix}-${i}`, kind: d.kind, content: d.content, summary: d.summary, attribute_key: d.attribute_key, valid_from: d.valid_from })),
  ];
}

describe('compileHeuristic: wire shape existing clients rely on', () => {
  it('keeps the customer sentence as fact content and opens the summary with "role: text"', () => {
    const ep = chat([['user', 'My name is Juno Marsh']], 0, 'sess-1');
    const plan = compileHeuristic([ep], []);
    const [name] = ofKind(plan, 'profile_fact');
    expect(name).toMatchObject({
      content: 'My name is Juno Marsh',
      summary: 'name: Juno Marsh',
      attribute_key: 'profile:name',
      status: 'active',
      valid_to: null,
      source_episode_ids: [ep.id],
      valid_from: ep.created_at,
    });
    expect(name.metadata).toMatchObject({ compiler: HEURISTIC_COMPILER_VERSION, attribute: 'name', value: 'Juno Marsh', session_id: 'sess-1' });
    expect(name.confidence).toBeGreaterThan(0.9);
    const [summary] = ofKind(plan, 'episode_summary');
    expect(summary.content.startsWith('user: My name is Juno Marsh')).toBe(true);
    expect(summary.source_episode_ids).toEqual([ep.id]);
  });

  it('gives each fact of a sentence its own clause as content', () => {
    const plan = compileHeuristic([chat([['user', 'My name is Juno Marsh and I live in Tromso']], 0)], []);
    expect(ofKind(plan, 'profile_fact').map((d) => [d.content, d.summary])).toEqual([
      ['My name is Juno Marsh', 'name: Juno Marsh'],
      ['I live in Tromso', 'location: Tromso'],
    ]);
  });

  it('lets a restated episode summary in a later compile supersede the earlier one', () => {
    const text = 'My favorite color is teal and my office is in building 7';
    const first = compileHeuristic([chat([['user', text]], 0)], []);
    const [summary] = ofKind(first, 'episode_summary');
    const stored = { id: 's1', kind: summary.kind, content: summary.content, summary: summary.summary, attribute_key: null, valid_from: summary.valid_from };
    const again = restatedMemories(compileHeuristic([chat([['user', text]], 2)], []), [stored]);
    const [newer] = ofKind(again, 'episode_summary');
    expect(newer).toMatchObject({ content: summary.content, status: 'active' });
    expect(again.supersede).toEqual([{ id: 's1', valid_to: new Date(T0 + 2 * HOUR), by_draft: again.drafts.indexOf(newer) }]);
  });

  it('yields one summary per conversation episode, at most 400 characters', () => {
    const long = 'I have a question about my account. '.repeat(40);
    const plan = compileHeuristic([chat([['user', long], ['assistant', long]], 0), chat([['user', 'Another topic entirely']], 1)], []);
    const summaries = ofKind(plan, 'episode_summary');
    expect(summaries).toHaveLength(2);
    for (const s of summaries) expect(s.content.length).toBeLessThanOrEqual(400);
  });

  it('sets confidence in (0, 1] and omits null session ids from metadata', () => {
    const plan = compileHeuristic([chat([['user', "I think I'm on the Pro plan and I love tea."]], 0)], []);
    for (const d of plan.drafts) {
      expect(d.confidence).toBeGreaterThan(0);
      expect(d.confidence).toBeLessThanOrEqual(1);
      expect('session_id' in d.metadata).toBe(false);
    }
  });
});

describe('compileHeuristic: support transcripts', () => {
  it('supersedes Pro with Enterprise when the customer upgrades in a later session', () => {
    const first = compileHeuristic(
      [chat([['assistant', 'Hi! How can I help you today?'], ['user', "Hi, I'm Juno Marsh. We're on the Pro plan and need more seats."]], 0, 's1')],
      [],
    );
    expect(bySummary(first, 'plan: Pro')?.status).toBe('active');
    const memories = applied([], first, 'run1');
    const pro = memories.find((m) => m.summary === 'plan: Pro');

    const second = compileHeuristic(
      [
        chat(
          [
            ['user', 'Can you move us to Enterprise?'],
            ['assistant', "Done! I've upgraded your account to Enterprise. You now have unlimited seats."],
            ['user', 'Great, thanks!'],
          ],
          48,
          's2',
        ),
      ],
      memories,
    );
    const enterprise = bySummary(second, 'plan: Enterprise');
    expect(enterprise?.status).toBe('active');
    expect(enterprise?.attribute_key).toBe('profile:plan');
    expect(enterprise?.metadata.confirmed_by).toBe('agent');
    expect(second.supersede).toEqual([{ id: pro?.id, valid_to: new Date(T0 + 48 * HOUR), by_draft: second.drafts.indexOf(enterprise!) }]);
  });

  it('replaces the email when the customer gives a new one, and ignores the agent repeating it', () => {
    const plan = compileHeuristic(
      [
        chat([['user', 'My email is juno@oldco.com']], 0),
        chat(
          [
            ['user', 'I changed jobs. Please update my email to juno@newco.io'],
            ['assistant', 'Your email has been updated to juno@newco.io.'],
          ],
          24,
        ),
      ],
      [],
    );
    const emails = ofKind(plan, 'profile_fact').filter((d) => d.attribute_key === 'profile:email');
    expect(emails.map((d) => [d.summary, d.status])).toEqual([
      ['email: juno@oldco.com', 'superseded'],
      ['email: juno@newco.io', 'active'],
    ]);
    expect(emails[0].valid_to).toEqual(emails[1].valid_from);
  });

  it('records contact preferences as facts and standing instructions as procedures', () => {
    const plan = compileHeuristic(
      [chat([['user', "I prefer email. Please don't call me before 9am, and always CC my manager Dana on invoices."]], 0)],
      [],
    );
    expect(bySummary(plan, 'contact preference: email')?.kind).toBe('profile_fact');
    const procedures = ofKind(plan, 'procedure');
    expect(procedures.map((p) => p.attribute_key).sort()).toEqual(['instruction:cc:manager', 'instruction:contact:call']);
    const noCall = compileHeuristic([chat([['user', 'From now on, only call me after 10am.']], 5)], applied([], plan, 'r1'));
    expect(noCall.supersede).toHaveLength(1);
  });

  it('does not duplicate facts when a complaint is repeated across sessions', () => {
    const complaint = "Hi, it's Juno Marsh again. My invoices keep failing to download.";
    const run1 = compileHeuristic([chat([['user', complaint], ['assistant', "Sorry! I've escalated this to our billing team."]], 0, 's1')], []);
    const run2 = compileHeuristic(
      [chat([['user', complaint], ['assistant', 'I see the earlier ticket. Escalating again.']], 72, 's2')],
      applied([], run1, 'r1'),
    );
    expect(ofKind(run2, 'profile_fact')).toEqual([]);
    const summaries = ofKind(run2, 'episode_summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0].content.startsWith('user: Hi, it')).toBe(true);
  });

  it('keeps troubleshooting steps the customer confirmed as a procedure', () => {
    const plan = compileHeuristic(
      [
        chat(
          [
            ['user', 'My printer won’t connect to Wi-Fi since the update.'],
            ['assistant', "Sorry about that! Let's try restarting the router."],
            ['user', "Still doesn't work."],
            ['assistant', 'OK. Remove the printer from your devices, then add it again from the Setup menu.'],
            ['user', 'That worked, thank you!'],
          ],
          0,
        ),
      ],
      [],
    );
    const [fix] = ofKind(plan, 'procedure');
    expect(fix.content).toBe(
      'Fix that worked for "My printer won\'t connect to Wi-Fi since the update.":\n1. Remove the printer from your devices, then add it again from the Setup menu',
    );
    expect(fix.metadata).toMatchObject({ procedure_type: 'fix', outcome: 'worked' });
    expect(fix.content).not.toContain('restarting the router');
  });

  it('stores a step list that answers a how-to question, keyed by its topic', () => {
    const plan = compileHeuristic(
      [
        chat(
          [
            ['user', 'How do I export my data?'],
            ['assistant', 'Here you go:\n1. Go to Settings > Privacy\n2. Click Export data\n3. Confirm with your password'],
          ],
          0,
        ),
      ],
      [],
    );
    const [howTo] = ofKind(plan, 'procedure');
    expect(howTo.content).toBe('How to export my data:\n1. Go to Settings > Privacy\n2. Click Export data\n3. Confirm with your password');
    expect(howTo.attribute_key).toBe('procedure:export data');
    expect(howTo.summary).toBe('how to export my data (3 steps)');
  });

  it('takes a short answer to an agent question as a fact', () => {
    const plan = compileHeuristic([chat([['assistant', 'Could I have your account number?'], ['user', 'Sure, AC-99812']], 0)], []);
    expect(bySummary(plan, 'account id: AC-99812')?.content).toBe('Sure, AC-99812');
  });

  it('never takes agent or system boilerplate as the customer profile', () => {
    const plan = compileHeuristic(
      [
        chat(
          [
            ['system', 'You are Sam, an agent at Acme. My name is Sam. I love helping customers.'],
            ['assistant', "Hi, I'm Sam from Acme! I live in Dublin and I'm on the support team."],
            ['user', 'Hello'],
          ],
          0,
        ),
      ],
      [],
    );
    expect(ofKind(plan, 'profile_fact')).toEqual([]);
  });
});

describe('compileHeuristic: preferences', () => {
  it('lets a restated preference on the same object supersede the old one, and keeps others', () => {
    const plan = compileHeuristic(
      [chat([['user', 'I love sushi. I like tea.']], 0), chat([['user', 'I like jazz.']], 1), chat([['user', 'Honestly, I hate sushi now.']], 2)],
      [],
    );
    const facts = ofKind(plan, 'profile_fact');
    expect(facts.map((f) => [f.summary, f.status])).toEqual([
      ['likes: sushi', 'superseded'],
      ['likes: tea', 'active'],
      ['likes: jazz', 'active'],
      ['dislikes: sushi', 'active'],
    ]);
  });

  it('lets a preference stated again in a later compile supersede the earlier memory', () => {
    const first = compileHeuristic([chat([['user', 'I love sushi!']], 0)], []);
    const known = applied([], first, 'r1');
    const earlier = known.find((m) => m.kind === 'profile_fact');
    const again = compileHeuristic([chat([['user', 'I really love sushi.']], 1)], known);
    const [restated] = ofKind(again, 'profile_fact');
    expect(restated).toMatchObject({ summary: 'likes: sushi', status: 'active', valid_to: null });
    expect(restated.metadata.supersedes).toEqual([earlier?.id]);
    expect(again.supersede).toEqual([{ id: earlier?.id, valid_to: new Date(T0 + HOUR), by_draft: again.drafts.indexOf(restated) }]);
  });

  it('keeps a preference said twice in one conversation as one memory', () => {
    const plan = compileHeuristic([chat([['user', 'I love sushi.'], ['assistant', 'Noted!'], ['user', 'Did I say I love sushi? I love sushi.']], 0)], []);
    expect(ofKind(plan, 'profile_fact').map((d) => [d.summary, d.status])).toEqual([['likes: sushi', 'active']]);
  });
});

describe('compileHeuristic: chats between named people (LoCoMo)', () => {
  const turn = (speaker: string, text: string, h: number): CompilerEpisode => ({
    ...chat([[speaker, text]], h, 'conv-1/session_1'),
    source: 'chat',
  });

  it('attributes facts to the speaker in key, content and summary', () => {
    const plan = compileHeuristic(
      [
        turn('Caroline', "I'm originally from Sweden. I love horses!", 0),
        turn('Melanie', 'I love horses too, and my husband and kids keep me busy.', 1),
      ],
      [],
    );
    const facts = ofKind(plan, 'profile_fact');
    expect(facts.map((f) => [f.attribute_key, f.summary])).toEqual([
      ['profile:hometown@caroline', 'Caroline — hometown: Sweden'],
      ['preference:hors@caroline', 'Caroline — likes: horses'],
      ['preference:hors@melanie', 'Melanie — likes: horses'],
      ['family:husband@melanie', 'Melanie — family: husband'],
    ]);
    expect(facts[0].content).toBe("Caroline: I'm originally from Sweden.");
    expect(active(facts)).toHaveLength(4);
    expect(ofKind(plan, 'episode_summary').map((s) => s.content)).toEqual([
      "Caroline: I'm originally from Sweden. I love horses!",
      'Melanie: I love horses too, and my husband and kids keep me busy.',
    ]);
  });
});

describe('compileHeuristic: other payloads', () => {
  it('extracts from the text of non-conversation payloads and summarises them', () => {
    const plan = compileHeuristic([episode({ title: 'Intake form', body: 'My name is Ada Lovelace. I live in London.' }, { type: 'form' })], []);
    expect(ofKind(plan, 'profile_fact').map((f) => f.summary)).toEqual(['name: Ada Lovelace', 'location: London']);
    const [summary] = ofKind(plan, 'episode_summary');
    expect(summary.content).toBe('form: Intake form My name is Ada Lovelace. I live in London.');
  });

  it('summarises structured events by their fields', () => {
    const plan = compileHeuristic([episode({ order_id: 123, status: 'shipped', nested: { a: 1 } }, { type: 'order_event' })], []);
    expect(plan.drafts.map((d) => d.content)).toEqual(['order_event: order_id=123, status=shipped']);
  });

  it('takes no profile facts from agent-side sources', () => {
    const plan = compileHeuristic([episode({ text: 'My name is Sam and I love helping.' }, { source: 'agent' })], []);
    expect(ofKind(plan, 'profile_fact')).toEqual([]);
    expect(ofKind(plan, 'episode_summary')).toHaveLength(1);
  });

  it('treats a payload that is one message as a conversation', () => {
    const plan = compileHeuristic([episode({ role: 'user', content: 'I prefer text messages.' })], []);
    expect(plan.drafts.map((d) => d.content)).toEqual(['I prefer text messages.', 'user: I prefer text messages.']);
  });
});

describe('compileHeuristic: robustness', () => {
  it.each([
    ['null', null],
    ['a number', 42],
    ['a string', 'My name is Juno'],
    ['an array', [1, 'two', { three: 3 }]],
    ['messages that are not an array', { messages: 'hello' }],
    ['malformed messages', { messages: [null, 1, { role: 5 }, { content: 'x' }, { role: 'user', content: {} }] }],
    ['emoji only', { messages: [{ role: 'user', content: '😀😀😀 🎉' }] }],
    ['another language', { messages: [{ role: 'user', content: 'Je m’appelle Élodie et j’habite à Paris. 我喜欢寿司。' }] }],
    ['a huge string', { messages: [{ role: 'user', content: 'My name is Juno. '.repeat(200_000) }] }],
    ['many messages', { messages: Array.from({ length: 10_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `msg ${i}` })) }],
    ['deep nesting', JSON.parse('{"a":'.repeat(500) + '"x"' + '}'.repeat(500)) as unknown],
  ])('never throws on %s', (_name, payload) => {
    const started = process.hrtime.bigint();
    expect(() => compileHeuristic([episode(payload)], [])).not.toThrow();
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });

  it('never throws on random JSON', () => {
    let seed = 12345;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const pieces = ['My name is', 'I love', '1.', '- Go to', '@', 'Pro plan', '😀', '?', '\n', ' ', 'é', 'I\'m', '"', 'my dog', 'Try', 'worked'];
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.3) return Array.from({ length: Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]).join(' ');
      if (r < 0.4) return random() * 100;
      if (r < 0.45) return null;
      if (r < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      const keys = ['role', 'content', 'messages', 'text', 'body', 'x'];
      return Object.fromEntries(keys.filter(() => random() < 0.5).map((k) => [k, value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      expect(() => compileHeuristic([episode(value(0)), episode({ messages: [value(1), value(1)] })], [])).not.toThrow();
    }
  });

  it('is deterministic', () => {
    const make = (): CompilerEpisode[] => [
      { ...chat([['user', 'My name is Juno. I love sushi and hiking.'], ['assistant', 'Try clearing the cache.'], ['user', 'That worked!']], 0), id: 'a' },
    ];
    expect(compileHeuristic(make(), [])).toEqual(compileHeuristic(make(), []));
  });
});

describe('compileHeuristic: a short reply logged as its own episode', () => {
  const summaries = (plan: CompilePlan): string[] => ofKind(plan, 'episode_summary').map((d) => d.content);

  it('says in its summary what the previous episode of the session asked', () => {
    const plan = compileHeuristic(
      [
        chat([['Caroline', 'Wow, that is a lot of miles! What got you into running?']], 0, 's1'),
        chat([['Melanie', 'To de-stress and clear my mind.']], 1, 's1'),
      ],
      [],
    );
    expect(summaries(plan)).toEqual([
      'Caroline: Wow, that is a lot of miles! What got you into running?',
      'Melanie (asked "What got you into running?"): To de-stress and clear my mind.',
    ]);
  });

  it('leaves a reply alone when it stands on its own, the same speaker asked, or it is another session', () => {
    const long =
      'Last Friday I went to an LGBTQ+ counseling workshop and it was really enlightening; they talked about therapeutic methods, safe spaces and how to best work with trans people in groups.';
    const plan = compileHeuristic(
      [
        chat([['Caroline', 'What did you do last week?']], 0, 's1'),
        chat([['Melanie', long]], 1, 's1'),
        chat([['Melanie', 'Any plans for the summer?']], 2, 's1'),
        chat([['Melanie', 'Camping, I hope.']], 3, 's1'),
        chat([['Caroline', 'Where did you go?']], 4, 's2'),
        chat([['Melanie', 'To the lake.']], 5, 's3'),
        chat([['Caroline', 'Where did you go?']], 6, null),
        chat([['Melanie', 'To the lake.']], 7, null),
      ],
      [],
    );
    expect(summaries(plan).filter((s) => s.includes('(asked'))).toEqual([]);
  });

  it('does not quote a long question, nor read one out of a multi-message episode', () => {
    const plan = compileHeuristic(
      [
        chat([['Caroline', 'I keep wondering about this, so tell me honestly, what was it that first got you into long-distance running?']], 0, 's1'),
        chat([['Melanie', 'To de-stress.']], 1, 's1'),
        chat([['agent', 'Hi!'], ['customer', 'Which plan am I on?']], 2, 's1'),
        chat([['agent', 'The Pro plan.']], 3, 's1'),
      ],
      [],
    );
    expect(summaries(plan).filter((s) => s.includes('(asked'))).toEqual([]);
  });
});
