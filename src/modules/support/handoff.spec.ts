import { countTokens } from 'src/common/text/tokenizer';
// The benchmarks' seeded PRNG: a failing random case replays from its seed.
import { prng } from '../../../test/support/prng';
import { resolutionRecord } from '../../../test/fixtures/support-records';
import { buildHandoff, fitToBudget, type HandoffInput } from './handoff';
import { computeHealth } from './health';
import { computeSla, DEFAULT_SLA_THRESHOLDS } from './sla';
import type { HealthResult, ProcedureMemory, ProfileFact, ResolutionRecord, SupportEpisode } from './support.types';

const d = (iso: string): Date => new Date(iso);

function episode(id: string, session: string | null, source: string, created: string, text: string): SupportEpisode {
  return { id, session_id: session, source, type: 'conversation', text, created_at: d(created) };
}

function resolution(
  session: string,
  status: ResolutionRecord['status'],
  updated: string,
  summary: string | null = null,
): ResolutionRecord {
  const at = d(updated);
  return resolutionRecord(session, status, { created: at, updated: at, resolved: status === 'resolved' ? at : null, subject: 'acme-corp', summary });
}

/**
 * Scripted customer: s1 resolved within the hour, s2 the same export problem answered slowly and
 * resolved after two days, s3 a billing ticket left open and idle, s4 today's third round of the
 * export problem, now urgent. One phone note carries no session.
 */
const NOW = d('2025-04-10T12:00:00.000Z');
const EPISODES: SupportEpisode[] = [
  episode('e-s1-1', 's1', 'user', '2025-04-01T09:00:00Z', 'The CSV export keeps failing with a timeout'),
  episode('e-s1-2', 's1', 'assistant', '2025-04-01T09:02:00Z', 'Raised the export timeout to 120s and re-ran the job.'),
  episode('e-s2-1', 's2', 'user', '2025-04-03T09:00:00Z', 'Export failed again: timeout on the CSV file'),
  episode('e-s2-2', 's2', 'assistant', '2025-04-03T09:20:00Z', 'Split the export into chunks of 10k rows.'),
  episode('e-s3-1', 's3', 'customer', '2025-04-07T08:00:00Z', 'Invoices show the wrong billing address'),
  episode('e-s3-2', 's3', 'support', '2025-04-07T08:03:00Z', 'Asked billing to correct the address on the next invoice.'),
  episode('e-n1', null, 'manual_input', '2025-04-08T15:00:00Z', 'Customer called about the invoice address.'),
  episode('e-s4-1', 's4', 'chat', '2025-04-10T11:00:00Z', 'user: CSV export timeout AGAIN. Month-end close is blocked.\nassistant: Checking the export logs now.'),
  episode('e-s4-2', 's4', 'assistant', '2025-04-10T11:02:00Z', 'The job hits the 120s limit; retrying in chunks.'),
  episode('e-s4-3', 's4', 'user', '2025-04-10T11:30:00Z', 'This is urgent, please escalate.'),
];
const RESOLUTIONS: ResolutionRecord[] = [
  resolution('s1', 'resolved', '2025-04-01T10:00:00Z', 'Raised export timeout to 120s'),
  resolution('s2', 'resolved', '2025-04-05T09:00:00Z', 'Export split into 10k-row chunks'),
  resolution('s3', 'open', '2025-04-07T08:05:00Z'),
];
const FACTS: ProfileFact[] = [
  { id: 'f1', content: 'My name is Dana Reyes', summary: 'Name: Dana Reyes', created_at: d('2025-04-01T09:00:00Z') },
  { id: 'f2', content: 'We are on the Enterprise plan', summary: 'Plan: Enterprise', created_at: d('2025-04-03T09:00:00Z') },
];
const PROCEDURES: ProcedureMemory[] = [{ id: 'p1', content: 'Re-run the CSV export in chunks of 10k rows', created_at: d('2025-04-05T09:00:00Z') }];

function scenarioInput(overrides: Partial<HandoffInput> = {}): HandoffInput {
  return {
    subjectId: 'acme-corp',
    sessionId: 's4',
    reason: 'customer asked for a human',
    maxTokens: 4000,
    now: NOW,
    episodes: EPISODES,
    resolutions: RESOLUTIONS,
    facts: FACTS,
    procedures: PROCEDURES,
    health: computeHealth('acme-corp', EPISODES, RESOLUTIONS, { now: NOW }),
    ...overrides,
  };
}

const EXPECTED_NOTES = `# Handoff Brief — acme-corp

🔴 **Health: AT_RISK** (score 10/100) — unresolved_issues -30, repeated_issues -20, escalations -20
**Session:** \`s4\` (unknown) · **Reason:** customer asked for a human

## Active Issue
CSV export timeout AGAIN. Month-end close is blocked. — latest: This is urgent, please escalate.

## Open Issues
- \`s3\` (open, since 2025-04-07) — Invoices show the wrong billing address
- \`s4\` (since 2025-04-10) — this session

## Previously Resolved
- \`s2\` (2025-04-05) — Export split into 10k-row chunks
- \`s1\` (2025-04-01) — Raised export timeout to 120s

## Attempted Steps
- assistant: Checking the export logs now.
- assistant: The job hits the 120s limit; retrying in chunks.
- procedure: Re-run the CSV export in chunks of 10k rows

## Key Facts
- We are on the Enterprise plan
- My name is Dana Reyes

## Recent Context
- 2025-04-08 15:00 [no session] manual_input: Customer called about the invoice address.`;

describe('scripted scenario: a customer with a fast fix, a breach, an idle ticket and a repeated complaint', () => {
  it('gives the SLA figures', () => {
    const sla = computeSla('acme-corp', EPISODES, RESOLUTIONS, { ...DEFAULT_SLA_THRESHOLDS, now: NOW });
    expect(sla).toEqual({
      subject_id: 'acme-corp',
      total_sessions: 4,
      resolved_sessions: 2,
      // s3 is open; s4 has no resolution record (unknown) and counts in the total only.
      open_sessions: 1,
      avg_first_response_seconds: 405,
      avg_resolution_seconds: 88_200,
      first_response_breach_count: 1,
      resolution_breach_count: 2,
      sessions: [
        {
          session_id: 's1',
          status: 'resolved',
          first_message_at: '2025-04-01T09:00:00.000Z',
          first_response_at: '2025-04-01T09:02:00.000Z',
          resolved_at: '2025-04-01T10:00:00.000Z',
          first_response_seconds: 120,
          resolution_seconds: 3600,
          open_duration_seconds: null,
          first_response_breached: false,
          resolution_breached: false,
        },
        {
          session_id: 's2',
          status: 'resolved',
          first_message_at: '2025-04-03T09:00:00.000Z',
          first_response_at: '2025-04-03T09:20:00.000Z',
          resolved_at: '2025-04-05T09:00:00.000Z',
          first_response_seconds: 1200,
          resolution_seconds: 172_800,
          open_duration_seconds: null,
          first_response_breached: true,
          resolution_breached: true,
        },
        {
          session_id: 's3',
          status: 'open',
          first_message_at: '2025-04-07T08:00:00.000Z',
          first_response_at: '2025-04-07T08:03:00.000Z',
          resolved_at: null,
          first_response_seconds: 180,
          resolution_seconds: null,
          open_duration_seconds: 273_600,
          first_response_breached: false,
          resolution_breached: true,
        },
        {
          session_id: 's4',
          status: 'unknown',
          first_message_at: '2025-04-10T11:00:00.000Z',
          first_response_at: '2025-04-10T11:02:00.000Z',
          resolved_at: null,
          first_response_seconds: 120,
          resolution_seconds: null,
          open_duration_seconds: 3600,
          first_response_breached: false,
          resolution_breached: false,
        },
      ],
    });
  });

  it('scores the customer at risk with every signal explained', () => {
    expect(computeHealth('acme-corp', EPISODES, RESOLUTIONS, { now: NOW })).toEqual({
      subject_id: 'acme-corp',
      score: 10,
      state: 'at_risk',
      factors: [
        { signal: 'unresolved_issues', impact: -30, detail: '2 open session(s)' },
        { signal: 'repeated_issues', impact: -20, detail: 'same issue raised in 3 sessions: s1, s2, s4' },
        { signal: 'escalations', impact: -20, detail: '1 message(s) with urgent wording in the last 7 days (urgent, escalate)' },
        { signal: 'idle_open_issue', impact: -10, detail: '1 open session(s) idle for more than 48h: s3' },
        { signal: 'sla_resolution_breaches', impact: -10, detail: '2 session(s) beyond the 24h resolution target: s2, s3' },
        { signal: 'slow_first_response', impact: -5, detail: '1 session(s) waited more than 5 min for a first response: s2' },
        { signal: 'recent_resolution', impact: 5, detail: '1 session(s) resolved in the last 7 days' },
      ],
    });
  });

  it('builds the handoff pack and its brief', () => {
    const pack = buildHandoff(scenarioInput());
    expect(pack.handoff_notes).toBe(EXPECTED_NOTES);
    expect(pack).toEqual({
      subject_id: 'acme-corp',
      session_id: 's4',
      reason: 'customer asked for a human',
      generated_at: '2025-04-10T12:00:00.000Z',
      customer_summary: 'acme-corp: 4 support session(s), 2 open, 2 resolved; health 10/100 (at_risk).',
      active_issue: 'CSV export timeout AGAIN. Month-end close is blocked. — latest: This is urgent, please escalate.',
      attempted_steps: [
        'assistant: Checking the export logs now.',
        'assistant: The job hits the 120s limit; retrying in chunks.',
        'procedure: Re-run the CSV export in chunks of 10k rows',
      ],
      key_facts: ['We are on the Enterprise plan', 'My name is Dana Reyes'],
      resolution_history: [
        { session_id: 's3', status: 'open', summary: '', resolved_at: null },
        { session_id: 's2', status: 'resolved', summary: 'Export split into 10k-row chunks', resolved_at: '2025-04-05T09:00:00.000Z' },
        { session_id: 's1', status: 'resolved', summary: 'Raised export timeout to 120s', resolved_at: '2025-04-01T10:00:00.000Z' },
      ],
      // The structured field keeps every recent episode; the brief drops what it already says.
      recent_context: [
        '2025-04-01T09:00:00.000Z [s1] (user) The CSV export keeps failing with a timeout',
        '2025-04-01T09:02:00.000Z [s1] (assistant) Raised the export timeout to 120s and re-ran the job.',
        '2025-04-03T09:00:00.000Z [s2] (user) Export failed again: timeout on the CSV file',
        '2025-04-03T09:20:00.000Z [s2] (assistant) Split the export into chunks of 10k rows.',
        '2025-04-07T08:00:00.000Z [s3] (customer) Invoices show the wrong billing address',
        '2025-04-07T08:03:00.000Z [s3] (support) Asked billing to correct the address on the next invoice.',
        '2025-04-08T15:00:00.000Z [no session] (manual_input) Customer called about the invoice address.',
        '2025-04-10T11:00:00.000Z [s4] (chat) user: CSV export timeout AGAIN. Month-end close is blocked. assistant: Checking the export logs now.',
        '2025-04-10T11:02:00.000Z [s4] (assistant) The job hits the 120s limit; retrying in chunks.',
        '2025-04-10T11:30:00.000Z [s4] (user) This is urgent, please escalate.',
      ],
      health_score: 10,
      health_state: 'at_risk',
      health_factors: [
        { signal: 'unresolved_issues', impact: -30, detail: '2 open session(s)' },
        { signal: 'repeated_issues', impact: -20, detail: 'same issue raised in 3 sessions: s1, s2, s4' },
        { signal: 'escalations', impact: -20, detail: '1 message(s) with urgent wording in the last 7 days (urgent, escalate)' },
      ],
      handoff_notes: EXPECTED_NOTES,
      token_estimate: countTokens(EXPECTED_NOTES),
      provenance: {
        fact_ids: ['f2', 'f1'],
        episode_ids: ['e-s4-1', 'e-s4-2', 'e-s4-3'],
        resolution_ids: ['r-s3', 'r-s2', 'r-s1'],
        context_episode_ids: ['e-s1-1', 'e-s1-2', 'e-s2-1', 'e-s2-2', 'e-s3-1', 'e-s3-2', 'e-n1', 'e-s4-1', 'e-s4-2', 'e-s4-3'],
      },
    });
  });

  it('renders the same brief and active issue for identical requests at different times', () => {
    const first = buildHandoff(scenarioInput());
    const later = buildHandoff(scenarioInput({ now: d('2025-04-10T12:00:05.000Z') }));
    expect(later.handoff_notes).toBe(first.handoff_notes);
    expect(later.active_issue).toBe(first.active_issue);
    expect(later.generated_at).not.toBe(first.generated_at);
  });
});

describe('buildHandoff', () => {
  it('shows the health badge and the state in capitals', () => {
    const withHealth = (score: number, state: HealthResult['state']) =>
      buildHandoff(scenarioInput({ health: { subject_id: 'acme-corp', score, state, factors: [] } })).handoff_notes;
    expect(withHealth(85, 'healthy')).toContain('🟢 **Health: HEALTHY** (score 85/100)');
    expect(withHealth(55, 'watch')).toContain('🟡 **Health: WATCH** (score 55/100)');
    expect(withHealth(5, 'at_risk')).toContain('🔴 **Health: AT_RISK** (score 5/100)');
  });

  it('handles missing health, an unknown session and an empty history', () => {
    const pack = buildHandoff({ ...scenarioInput(), sessionId: 'new', episodes: [], resolutions: [], facts: [], procedures: [], health: null });
    expect(pack).toMatchObject({
      active_issue: 'No messages recorded for session new.',
      customer_summary: 'acme-corp: 0 support session(s), 0 open, 0 resolved; health not computed.',
      attempted_steps: [],
      health_score: null,
      health_state: null,
      health_factors: [],
      provenance: { fact_ids: [], episode_ids: [], resolution_ids: [], context_episode_ids: [] },
    });
    expect(pack.handoff_notes).toContain('⚪ **Health: UNKNOWN**');
    expect(pack.handoff_notes).toContain('## Open Issues\n- none\n\n## Previously Resolved\n- none');
  });

  it('describes a session without customer words by its first episode', () => {
    const episodes = [episode('a', 'x', 'assistant', '2025-04-10T10:00:00Z', 'Proactive notice: maintenance tonight')];
    expect(buildHandoff(scenarioInput({ sessionId: 'x', episodes })).active_issue).toBe('Proactive notice: maintenance tonight');
  });

  it('keeps item text on one line so it cannot add markdown structure', () => {
    const episodes = [episode('a', 'x', 'user', '2025-04-10T10:00:00Z', 'Help\n\n# Ignore the brief\n- fake item')];
    const notes = buildHandoff(scenarioInput({ sessionId: 'x', episodes })).handoff_notes;
    expect(notes).toContain('## Active Issue\nHelp # Ignore the brief - fake item\n');
    expect(notes.split('\n').filter((l) => l.startsWith('# '))).toHaveLength(1);
  });

  it('bounds long histories: newest items, with a count of the rest', () => {
    const many = Array.from({ length: 30 }, (_, i) => {
      const at = new Date(Date.parse('2025-03-01T00:00:00Z') + i * 3_600_000).toISOString();
      return episode(`m${i}`, `t${String(i).padStart(2, '0')}`, i % 2 ? 'agent' : 'user', at, `message ${i}`);
    });
    const pack = buildHandoff(scenarioInput({ episodes: many, resolutions: [] }));
    expect(pack.recent_context).toHaveLength(10);
    expect(pack.provenance.context_episode_ids[9]).toBe('m29');
    expect(pack.handoff_notes).toContain('- … and 20 more');
  });
});


const WORDS = ['export', 'timeout', 'invoice', 'urgent', 'naïve', '数据', '🔴', 'ok', '\n', '## heading', 'user:', 'assistant:', 'x'.repeat(12)];

function randomInput(seed: number): HandoffInput {
  const rand = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
  const text = (n: number) => Array.from({ length: 1 + Math.floor(rand() * n) }, () => pick(WORDS)).join(' ');
  const sessions = ['a', 'b', 'c', 'd'];
  const episodes = Array.from({ length: Math.floor(rand() * 40) }, (_, i) =>
    episode(`e${i}`, rand() < 0.1 ? null : pick(sessions), pick(['user', 'assistant', 'chat', 'email']), new Date(Date.parse('2025-04-01T00:00:00Z') + Math.floor(rand() * 9 * 86_400_000)).toISOString(), text(60)),
  );
  const resolutions = sessions.filter(() => rand() < 0.5).map((s) => ({ ...resolution(s, pick(['open', 'resolved', 'unresolved'] as const), '2025-04-09T00:00:00Z'), resolution_summary: text(30) }));
  return {
    subjectId: `subject-${seed}`,
    sessionId: pick(sessions),
    reason: text(10),
    maxTokens: 4000,
    now: NOW,
    episodes,
    resolutions,
    facts: Array.from({ length: Math.floor(rand() * 8) }, (_, i) => ({ id: `f${i}`, content: text(40), summary: '', created_at: NOW })),
    procedures: Array.from({ length: Math.floor(rand() * 4) }, (_, i) => ({ id: `p${i}`, content: text(40), created_at: NOW })),
    health: computeHealth(`subject-${seed}`, episodes, resolutions, { now: NOW }),
  };
}

describe('handoff token budget', () => {
  it('fits every budget from 1 to 64 tokens, with token_estimate counting the notes', () => {
    const input = scenarioInput();
    for (let maxTokens = 1; maxTokens <= 64; maxTokens++) {
      const pack = buildHandoff({ ...input, maxTokens });
      expect(pack.token_estimate).toBe(countTokens(pack.handoff_notes));
      expect(pack.token_estimate).toBeLessThanOrEqual(maxTokens);
    }
  });

  it('fits random budgets up to 16000 for random customers', () => {
    const rand = prng(42);
    for (let seed = 1; seed <= 25; seed++) {
      const input = randomInput(seed);
      for (const maxTokens of [1, 2, 3, 16000, 1 + Math.floor(rand() * 100), 1 + Math.floor(rand() * 2000), 1 + Math.floor(rand() * 16000)]) {
        const pack = buildHandoff({ ...input, maxTokens });
        expect(pack.token_estimate).toBe(countTokens(pack.handoff_notes));
        expect(pack.token_estimate).toBeLessThanOrEqual(maxTokens);
        expect(pack.handoff_notes).not.toContain('\uFFFD');
      }
    }
  });

  it('cuts a long multilingual brief to every budget it is asked for', () => {
    const rand = prng(7);
    const long = Array.from({ length: 800 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    const budgets = [...Array.from({ length: 80 }, (_, i) => i + 1), ...Array.from({ length: 40 }, () => 1 + Math.floor(rand() * 2000)), 16000];
    for (const maxTokens of budgets) {
      const notes = fitToBudget(long, maxTokens);
      expect(countTokens(notes)).toBeLessThanOrEqual(maxTokens);
      expect(long.startsWith(notes.replace('\n\n_(cut to the token budget)_', ''))).toBe(true);
    }
  });

  it('is shorter than twice the conversation it covers, and says each line once', () => {
    const raw = EPISODES.map((e) => e.text).join('');
    const notes = buildHandoff(scenarioInput({ maxTokens: 16000 })).handoff_notes;
    expect(notes.length).toBeLessThan(2 * raw.length);
    for (const e of EPISODES) for (const line of e.text.split('\n')) expect(notes.split(line.replace(/^\w+: /, '')).length - 1).toBeLessThanOrEqual(1);
    // Without the resolutions, every session's lines are candidates for Recent Context.
    const unresolved = buildHandoff(scenarioInput({ maxTokens: 16000, resolutions: [] })).handoff_notes;
    expect(unresolved.length).toBeLessThan(2 * raw.length);
    expect(unresolved).toContain('This is urgent, please escalate.');
  });

  it('keeps the brief whole when it fits and marks the cut otherwise', () => {
    const full = buildHandoff(scenarioInput({ maxTokens: 16000 })).handoff_notes;
    expect(full).toBe(EXPECTED_NOTES);
    const cut = buildHandoff(scenarioInput({ maxTokens: 120 })).handoff_notes;
    expect(cut.endsWith('\n\n_(cut to the token budget)_')).toBe(true);
    expect(full.startsWith(cut.replace('\n\n_(cut to the token budget)_', ''))).toBe(true);
    expect(cut).toContain('## Active Issue');
  });

  it('drops the marker when the budget is too small for it', () => {
    const cut = fitToBudget(EXPECTED_NOTES, 5);
    expect(EXPECTED_NOTES.startsWith(cut)).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(5);
  });
});
