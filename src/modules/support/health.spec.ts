import { computeHealth, contentWords, HealthTextIndex, healthStateForScore, healthTransitionEvent, repeatedIssues } from './health';
import { prng } from '../../../test/support/prng';
import { buildSessions } from './sessions';
import type { HealthResult, ResolutionRecord, SupportEpisode } from './support.types';
import { resolutionRecord } from '../../../test/fixtures/support-records';

const NOW = new Date('2025-03-31T12:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);

let seq = 0;
function episode(session: string | null, source: string, created: Date, text: string): SupportEpisode {
  seq += 1;
  return { id: `e${seq}`, session_id: session, source, type: 'conversation', text, created_at: created };
}

/** A customer message answered by an agent a minute later. */
function exchange(session: string, start: Date, question: string): SupportEpisode[] {
  return [episode(session, 'user', start, question), episode(session, 'assistant', new Date(start.getTime() + MIN), 'Looking into it.')];
}

function resolution(session: string, status: ResolutionRecord['status'], updated: Date): ResolutionRecord {
  return resolutionRecord(session, status, { created: updated, updated, resolved: status === 'resolved' ? updated : null });
}

const health = (episodes: SupportEpisode[], resolutions: ResolutionRecord[] = []): HealthResult =>
  computeHealth('cust', episodes, resolutions, { now: NOW });

describe('computeHealth', () => {
  it('scores a subject without sessions 100, healthy, without factors', () => {
    expect(health([episode(null, 'user', ago(HOUR), 'production is down, urgent!')])).toEqual({
      subject_id: 'cust',
      score: 100,
      state: 'healthy',
      factors: [],
    });
  });

  it('costs 15 points per open session', () => {
    expect(health(exchange('s1', ago(HOUR), 'Where is my invoice?'))).toEqual({
      subject_id: 'cust',
      score: 85,
      state: 'healthy',
      factors: [{ signal: 'unresolved_issues', impact: -15, detail: '1 open session(s)' }],
    });
  });

  it('caps the open-session penalty at 45 and counts unresolved and unknown sessions as open', () => {
    const topics = ['invoice address wrong', 'password reset email missing', 'dark mode request', 'billing currency euro', 'webhook secret rotation'];
    const episodes = topics.flatMap((t, i) => exchange(`s${i}`, ago((i + 1) * HOUR), t));
    const result = health(episodes, [resolution('s0', 'unresolved', ago(HOUR)), resolution('s1', 'open', ago(HOUR))]);
    expect(result.factors).toEqual([{ signal: 'unresolved_issues', impact: -45, detail: '5 open session(s)' }]);
    expect(result).toMatchObject({ score: 55, state: 'watch' });
  });

  it('flags open sessions idle for more than 48 hours, which by then are also beyond the resolution target', () => {
    const result = health([...exchange('old', ago(49 * HOUR), 'Refund for order 1234'), ...exchange('fresh', ago(47 * HOUR), 'Change plan tier')]);
    expect(result.factors).toEqual([
      { signal: 'unresolved_issues', impact: -30, detail: '2 open session(s)' },
      { signal: 'idle_open_issue', impact: -10, detail: '1 open session(s) idle for more than 48h: old' },
      { signal: 'sla_resolution_breaches', impact: -10, detail: '2 session(s) beyond the 24h resolution target: old, fresh' },
    ]);
    expect(result).toMatchObject({ score: 50, state: 'watch' });
  });

  it('counts any resolution update as activity of the session', () => {
    const result = health(exchange('s', ago(3 * DAY), 'Refund for order 1234'), [resolution('s', 'open', ago(HOUR))]);
    expect(result.factors.map((f) => f.signal)).not.toContain('idle_open_issue');
  });

  it('uses the SLA thresholds it is given', () => {
    const episodes = [episode('s', 'user', ago(30 * MIN), 'Cannot upload files'), episode('s', 'agent', ago(20 * MIN), 'Checking.')];
    const result = computeHealth('cust', episodes, [resolution('s', 'resolved', ago(10 * MIN))], {
      now: NOW,
      sla: { firstResponseThresholdMinutes: 1, resolutionThresholdHours: 0.1 },
    });
    expect(result.factors).toEqual([
      { signal: 'sla_resolution_breaches', impact: -5, detail: '1 session(s) beyond the 0.1h resolution target: s' },
      { signal: 'slow_first_response', impact: -5, detail: '1 session(s) waited more than 1 min for a first response: s' },
      { signal: 'recent_resolution', impact: 5, detail: '1 session(s) resolved in the last 7 days' },
    ]);
    expect(result.score).toBe(95);
  });

  it('forgets resolved sessions whose last activity is older than 30 days', () => {
    const episodes = [episode('s', 'user', ago(40 * DAY), 'Cannot upload files')];
    expect(health(episodes, [resolution('s', 'resolved', ago(31 * DAY))])).toEqual({ subject_id: 'cust', score: 100, state: 'healthy', factors: [] });
  });

  it('costs 20 points per recent non-agent message with urgent wording, capped at 40', () => {
    const episodes = [
      ...exchange('s', ago(HOUR), 'This is URGENT, our production is down'),
      episode('s', 'assistant', ago(50 * MIN), 'I will escalate this to the on-call engineer, critical priority.'),
      episode('s', 'chat', ago(40 * MIN), 'user: any news?\nassistant: escalating now'),
      episode(null, 'email', ago(DAY), 'We need this fixed ASAP'),
      episode('old', 'user', ago(8 * DAY), 'outage again'),
    ];
    const result = health(episodes, [resolution('old', 'resolved', ago(8 * DAY))]);
    expect(result.factors).toContainEqual({
      signal: 'escalations',
      impact: -40,
      detail: '2 message(s) with urgent wording in the last 7 days (urgent, asap, is down)',
    });
  });

  it('puts a customer with one urgent open issue on watch', () => {
    expect(health(exchange('s', ago(HOUR), 'Production is down, please help'))).toEqual({
      subject_id: 'cust',
      score: 65,
      state: 'watch',
      factors: [
        { signal: 'escalations', impact: -20, detail: '1 message(s) with urgent wording in the last 7 days (is down)' },
        { signal: 'unresolved_issues', impact: -15, detail: '1 open session(s)' },
      ],
    });
  });

  it('lists at most ten session ids in a detail', () => {
    const episodes = Array.from({ length: 12 }, (_, i) => episode(`s${String(i).padStart(2, '0')}`, 'user', ago((50 + i) * HOUR), `topic ${i}`));
    const idle = health(episodes).factors.find((f) => f.signal === 'idle_open_issue');
    expect(idle?.detail).toBe('12 open session(s) idle for more than 48h: s11, s10, s09, s08, s07, s06, s05, s04, s03, s02 and 2 more');
  });

  it('flags the same issue raised in several sessions', () => {
    const episodes = [
      ...exchange('a', ago(20 * DAY), 'The CSV export keeps failing with a timeout'),
      ...exchange('b', ago(10 * DAY), 'Export failed again: timeout on the CSV file'),
      ...exchange('c', ago(5 * DAY), 'How do I add a teammate?'),
      ...exchange('d', ago(2 * DAY), 'csv export timeout, third time'),
    ];
    const resolutions = (
      [
        ['a', 20],
        ['b', 10],
        ['c', 5],
        ['d', 2],
      ] as const
    ).map(([s, days]) => resolution(s, 'resolved', ago(days * DAY - HOUR)));
    expect(health(episodes, resolutions)).toEqual({
      subject_id: 'cust',
      score: 95,
      state: 'healthy',
      factors: [
        { signal: 'repeated_issues', impact: -20, detail: 'same issue raised in 3 sessions: a, b, d' },
        { signal: 'recent_resolution', impact: 5, detail: '2 session(s) resolved in the last 7 days' },
        { signal: 'high_resolution_rate', impact: 10, detail: '4 of 4 sessions of the last 30 days resolved (100%)' },
      ],
    });
  });

  it('rewards a high resolution rate only from three sessions on', () => {
    const two = [...exchange('a', ago(2 * DAY), 'invoice address'), ...exchange('b', ago(DAY), 'password reset')];
    const twoResolved = [resolution('a', 'resolved', ago(9 * DAY)), resolution('b', 'resolved', ago(9 * DAY))];
    expect(health(two, twoResolved).factors).toEqual([]);

    const five = [...two, ...exchange('c', ago(DAY), 'dark mode'), ...exchange('d', ago(DAY), 'api limits'), ...exchange('e', ago(HOUR), 'team seats')];
    const fourResolved = [...twoResolved, ...['c', 'd'].map((s) => resolution(s, 'resolved', ago(9 * DAY)))];
    expect(health(five, fourResolved).factors).toEqual([
      { signal: 'unresolved_issues', impact: -15, detail: '1 open session(s)' },
      { signal: 'high_resolution_rate', impact: 10, detail: '4 of 5 sessions of the last 30 days resolved (80%)' },
    ]);
  });

  it('clamps the score at 0 and at 100', () => {
    const urgent = (s: string, h: number) => [episode(s, 'user', ago(h * HOUR), `urgent: outage ${s}`)];
    const many = ['a', 'b', 'c', 'd'].flatMap((s, i) => urgent(s, 60 + i));
    const low = health(many);
    expect(low.factors.reduce((sum, f) => sum + f.impact, 0)).toBeLessThan(-100);
    expect(low).toMatchObject({ score: 0, state: 'at_risk' });

    const good = ['a', 'b', 'c'].flatMap((s, i) => exchange(s, ago((i + 1) * HOUR), `topic ${s}`));
    expect(health(good, ['a', 'b', 'c'].map((s) => resolution(s, 'resolved', ago(30 * MIN)))).score).toBe(100);
  });

  it('gives every factor a non-empty signal and detail and an integer impact', () => {
    const result = health(
      [...exchange('a', ago(3 * DAY), 'urgent export failing timeout'), ...exchange('b', ago(60 * HOUR), 'export failing timeout asap')],
      [],
    );
    expect(result.factors.length).toBeGreaterThan(2);
    for (const f of result.factors) {
      expect(f.signal.length).toBeGreaterThan(0);
      expect(f.detail.length).toBeGreaterThan(0);
      expect(Number.isInteger(f.impact)).toBe(true);
    }
  });
});

describe('repeatedIssues and contentWords', () => {
  it('drops stop words, short words and common suffixes', () => {
    expect([...contentWords("Hi! The exports keep FAILING, it's failed again")]).toEqual(['export', 'fail']);
  });

  it('links sessions transitively, whatever the comparison order', () => {
    const episodes = [
      episode('x', 'user', ago(3 * HOUR), 'invoice pdf download broken'),
      episode('y', 'user', ago(2 * HOUR), 'pdf download broken'),
      episode('z', 'user', ago(HOUR), 'download broken on mobile'),
      episode('w', 'user', ago(HOUR), 'invoice address'),
    ];
    const groups = repeatedIssues(buildSessions(episodes, []));
    expect(groups.map((g) => g.map((s) => s.session_id))).toEqual([['x', 'y', 'z']]);
    expect(repeatedIssues(buildSessions([...episodes].reverse(), [])).map((g) => g.map((s) => s.session_id))).toEqual([['x', 'y', 'z']]);
  });

  it('needs two shared content words', () => {
    const episodes = [episode('a', 'user', ago(2 * HOUR), 'refund'), episode('b', 'user', ago(HOUR), 'refund')];
    expect(repeatedIssues(buildSessions(episodes, []))).toEqual([]);
  });
});

describe('HealthTextIndex (health read across recomputations)', () => {
  const WORDS = ['csv', 'export', 'timeout', 'invoice', 'refund', 'password', 'reset', 'webhook', 'billing', 'login', 'urgent', 'outage', 'mobile', 'download'];
  /** A subject's random history: sessions of customer and agent turns, some wording urgent or repeated. */
  function history(seed: number, count: number): SupportEpisode[] {
    const rnd = prng(seed);
    const pick = () => WORDS[Math.floor(rnd() * WORDS.length)];
    return Array.from({ length: count }, (_, i) =>
      episode(`s${Math.floor(i / 3) % 17}`, rnd() < 0.6 ? 'user' : 'assistant', ago((count - i) * HOUR), `${pick()} ${pick()} ${pick()} ${rnd() < 0.1 ? 'production is down' : pick()}`),
    );
  }

  it('gives the result of a fresh computation while the subject grows, is edited and loses episodes', () => {
    const index = new HealthTextIndex();
    let episodes: SupportEpisode[] = [];
    const grown = history(7, 120);
    for (let step = 0; step < 40; step++) {
      episodes = grown.slice(0, 3 * (step + 1));
      // An episode rewritten in place (same id, new text or source) must be read again, not answered from the index.
      if (step % 5 === 4) episodes = episodes.map((e, i) => (i === step ? { ...e, text: `${e.text} urgent outage`, source: 'customer' } : e));
      // Deleted episodes (a session removed) simply stop being asked for.
      if (step % 7 === 6) episodes = episodes.filter((e) => e.session_id !== 's1');
      const resolutions = step > 20 ? [resolution('s2', 'resolved', ago(2 * DAY))] : [];
      const fresh = computeHealth('cust', episodes, resolutions, { now: NOW });
      expect(computeHealth('cust', episodes, resolutions, { now: NOW, texts: index, tenantId: null })).toEqual(fresh);
      // The session links kept for the subject, extended step by step, give the groups of a fresh comparison.
      const sessions = buildSessions(episodes, resolutions);
      const ids = (groups: { session_id: string }[][]) => groups.map((g) => g.map((x) => x.session_id));
      expect(ids(repeatedIssues(sessions, { texts: index, subject: { tenantId: null, subjectId: 'links' } }))).toEqual(ids(repeatedIssues(sessions)));
    }
    expect(computeHealth('cust', episodes, [], { now: NOW, texts: index, tenantId: null }).factors.map((f) => f.signal)).toEqual(
      expect.arrayContaining(['unresolved_issues', 'repeated_issues', 'escalations']),
    );
  });

  it('stays within its bound and still answers exactly once episodes were dropped from it', () => {
    const index = new HealthTextIndex(10);
    const episodes = history(11, 60);
    const fresh = computeHealth('cust', episodes, [], { now: NOW });
    expect(computeHealth('cust', episodes, [], { now: NOW, texts: index, tenantId: null })).toEqual(fresh);
    expect(computeHealth('cust', episodes, [], { now: NOW, texts: index, tenantId: null })).toEqual(fresh);
    expect(index.size).toBe(10);
  });

  it("keeps apart what it read for two tenants' subjects of the same id", () => {
    const index = new HealthTextIndex();
    const a = { tenantId: 'tenant-a', subjectId: 'cust' };
    const b = { tenantId: 'tenant-b', subjectId: 'cust' };
    const single = { tenantId: null, subjectId: 'cust' };
    const ids = (groups: { session_id: string }[][]) => groups.map((g) => g.map((x) => x.session_id));
    // The same episodes (ids included) in every tenant: no tenant is answered with another's reading.
    const shared = history(7, 60);
    for (const subject of [a, b, single]) expect(ids(repeatedIssues(buildSessions(shared, []), { texts: index, subject }))).toEqual(ids(repeatedIssues(buildSessions(shared, []))));
    for (const e of shared) {
      const readings = [a, b, single].map((subject) => index.signals(subject, e));
      expect(new Set(readings).size).toBe(3);
      expect(readings.map((r) => r.subject)).toEqual([a, b, single]);
    }

    // B's computation of another history (same session ids) neither takes nor replaces A's links.
    // Every episode the customer's, so every session has an opening to compare.
    const sessionsA = buildSessions(history(11, 60).map((e) => ({ ...e, source: 'user' })), []);
    const sessionsB = buildSessions(history(12, 60), []);
    repeatedIssues(sessionsA, { texts: index, subject: a });
    expect(ids(repeatedIssues(sessionsB, { texts: index, subject: b }))).toEqual(ids(repeatedIssues(sessionsB)));
    const openings = sessionsA.map((s) => s.episodes.map((e) => index.signals(a, e).opening).find((o) => o !== null) as ReadonlySet<string>);
    const kept = index.takeLinks(a, sessionsA.map((s) => s.session_id), openings);
    expect(kept.ids).toEqual(sessionsA.map((s) => s.session_id));
  });

  it('links the same sessions as comparing every pair of openings', () => {
    let linked = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const sessions = buildSessions(history(seed, 90), []);
      const opening = (i: number) => contentWords(sessions[i].episodes.filter((e) => e.source === 'user').map((e) => e.text)[0] ?? '');
      // Reference: the pairwise rule on every pair, components by repeated merging.
      const label = sessions.map((_, i) => i);
      for (let i = 0; i < sessions.length; i++) {
        for (let j = i + 1; j < sessions.length; j++) {
          const a = opening(i), b = opening(j);
          const shared = [...a].filter((w) => b.has(w)).length;
          if (shared >= 2 && shared / Math.min(a.size, b.size) >= 0.6) {
            const from = label[j], to = label[i];
            for (let k = 0; k < label.length; k++) if (label[k] === from) label[k] = to;
          }
        }
      }
      const expected = [...new Set(label)].map((l) => sessions.filter((_, i) => label[i] === l).map((s) => s.session_id)).filter((g) => g.length > 1);
      const got = repeatedIssues(sessions).map((g) => g.map((s) => s.session_id));
      expect(got.map((g) => [...g].sort()).sort()).toEqual(expected.map((g) => [...g].sort()).sort());
      linked += got.length;
    }
    expect(linked).toBeGreaterThan(0);
  });
});

describe('repeatedIssues on openings of every size', () => {
  // Openings of 1 to 12 words from a skewed vocabulary (a few words in most openings, many rare
  // ones), so pairs of unequal size link through the smaller one's share of the larger.
  const VOCABULARY = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
  function openings(seed: number, count: number): SupportEpisode[] {
    const rnd = prng(seed);
    return Array.from({ length: count }, (_, i) => {
      const size = 1 + Math.floor(rnd() * 12);
      const words = Array.from({ length: size }, () => VOCABULARY[Math.floor(VOCABULARY.length * rnd() ** 2.5)]);
      return episode(`s${i}`, 'user', ago((count - i) * HOUR), words.join(' '));
    });
  }
  /** The groups by the pairwise rule on every pair (as sorted id lists). */
  function everyPair(sessions: ReturnType<typeof buildSessions>): string[][] {
    const opening = sessions.map((s) => contentWords(s.episodes[0].text));
    const label = sessions.map((_, i) => i);
    for (let i = 0; i < sessions.length; i++) {
      for (let j = i + 1; j < sessions.length; j++) {
        const shared = [...opening[i]].filter((w) => opening[j].has(w)).length;
        if (shared >= 2 && shared / Math.min(opening[i].size, opening[j].size) >= 0.6) {
          const from = label[j], to = label[i];
          for (let k = 0; k < label.length; k++) if (label[k] === from) label[k] = to;
        }
      }
    }
    return sorted([...new Set(label)].map((l) => sessions.filter((_, i) => label[i] === l).map((s) => s.session_id)).filter((g) => g.length > 1));
  }
  const sorted = (groups: string[][]) => groups.map((g) => [...g].sort()).sort();
  const ids = (groups: { session_id: string }[][]) => sorted(groups.map((g) => g.map((s) => s.session_id)));

  it('links what comparing every pair links, computed at once', () => {
    let unequal = 0;
    for (let seed = 1; seed <= 15; seed++) {
      const sessions = buildSessions(openings(seed, 120), []);
      const expected = everyPair(sessions);
      expect(ids(repeatedIssues(sessions))).toEqual(expected);
      unequal += expected.filter((g) => new Set(g.map((id) => contentWords(sessions.find((s) => s.session_id === id)!.episodes[0].text).size)).size > 1).length;
    }
    expect(unequal).toBeGreaterThan(5);
  });

  it('links what comparing every pair links while sessions are added and the oldest leave', () => {
    const index = new HealthTextIndex();
    const subject = { tenantId: null, subjectId: 'window' };
    const all = openings(99, 400);
    for (let end = 20; end <= 400; end += 20) {
      // Up to 200 sessions: past that, the oldest leave as new ones come (a sliding window).
      const sessions = buildSessions(all.slice(Math.max(0, end - 200), end), []);
      expect(ids(repeatedIssues(sessions, { texts: index, subject }))).toEqual(everyPair(sessions));
    }
  });
});

describe('healthStateForScore', () => {
  it('uses the contract thresholds', () => {
    expect([100, 70, 69, 40, 39, 0].map(healthStateForScore)).toEqual(['healthy', 'healthy', 'watch', 'watch', 'at_risk', 'at_risk']);
  });
});

describe('healthTransitionEvent', () => {
  const result = (score: number): HealthResult => ({
    subject_id: 'cust',
    score,
    state: healthStateForScore(score),
    factors: [{ signal: 'unresolved_issues', impact: score - 100, detail: 'x open session(s)' }],
  });
  const prev = (score: number) => ({ state: healthStateForScore(score), score });

  it('degrades toward at_risk and improves toward healthy, including jumps over watch', () => {
    const cases: Array<[number, number, string | null]> = [
      [85, 55, 'subject.health_degraded'],
      [55, 25, 'subject.health_degraded'],
      [85, 25, 'subject.health_degraded'],
      [55, 85, 'subject.health_improved'],
      [25, 55, 'subject.health_improved'],
      [25, 85, 'subject.health_improved'],
      [85, 70, null],
      [69, 40, null],
      [39, 0, null],
    ];
    for (const [before, after, event] of cases) {
      expect(healthTransitionEvent(prev(before), result(after), NOW)?.event ?? null).toBe(event);
    }
  });

  it('carries the payload deployments know', () => {
    expect(healthTransitionEvent(prev(85), result(55), NOW)).toEqual({
      event: 'subject.health_degraded',
      data: {
        subject_id: 'cust',
        previous_state: 'healthy',
        current_state: 'watch',
        score: 55,
        previous_score: 85,
        factors: [{ signal: 'unresolved_issues', impact: -45, detail: 'x open session(s)' }],
        generated_at: '2025-03-31T12:00:00.000Z',
      },
    });
  });

  it('compares a first computation with healthy/100', () => {
    expect(healthTransitionEvent(null, result(85), NOW)).toBeNull();
    expect(healthTransitionEvent(null, result(25), NOW)?.data).toMatchObject({ previous_state: 'healthy', previous_score: 100, current_state: 'at_risk' });
  });
});
