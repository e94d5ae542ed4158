import { buildSessions, chronological, classifySource, customerMessages, isOpenStatus, resolvedAtOf, speakerLines } from './sessions';
import type { ResolutionRecord, SupportEpisode } from './support.types';
import { resolutionRecord } from '../../../test/fixtures/support-records';

const T0 = Date.parse('2025-03-01T09:00:00.000Z');
const at = (minutes: number): Date => new Date(T0 + minutes * 60_000);

function episode(id: string, session: string | null, source: string, minutes: number, text = `${source} text`): SupportEpisode {
  return { id, session_id: session, source, type: 'conversation', text, created_at: at(minutes) };
}

function resolution(session: string, status: ResolutionRecord['status'], minutes: number, resolvedMinutes: number | null = null): ResolutionRecord {
  return resolutionRecord(session, status, { created: at(0), updated: at(minutes), resolved: resolvedMinutes === null ? null : at(resolvedMinutes) });
}

describe('classifySource', () => {
  it('knows the customer-like and agent-like sources of compat.md, case-insensitively', () => {
    for (const s of ['user', 'chat', 'support-chat', 'support_chat', 'customer', 'manual_input', 'USER', ' Chat ']) {
      expect(classifySource(s)).toBe('customer');
    }
    for (const s of ['assistant', 'agent', 'system', 'tool', 'support', 'staff', 'Assistant', 'STAFF']) {
      expect(classifySource(s)).toBe('agent');
    }
  });

  it('calls any other source `other`', () => {
    expect(classifySource('email')).toBe('other');
    expect(classifySource('crm-sync')).toBe('other');
    expect(classifySource('')).toBe('other');
  });
});

describe('isOpenStatus and resolvedAtOf', () => {
  it('treats every status but resolved as open', () => {
    expect(isOpenStatus('open')).toBe(true);
    expect(isOpenStatus('unresolved')).toBe(true);
    expect(isOpenStatus('unknown')).toBe(true);
    expect(isOpenStatus('resolved')).toBe(false);
  });

  it('gives a resolution time only to resolved records, falling back to updated_at', () => {
    expect(resolvedAtOf(resolution('s', 'resolved', 50, 40))).toEqual(at(40));
    expect(resolvedAtOf(resolution('s', 'resolved', 50))).toEqual(at(50));
    expect(resolvedAtOf(resolution('s', 'open', 50, 40))).toBeNull();
  });
});

describe('chronological', () => {
  it('sorts by created_at and keeps the given order for equal timestamps', () => {
    const a = episode('a', 's', 'user', 5);
    const b = episode('b', 's', 'assistant', 1);
    const c = episode('c', 's', 'user', 1);
    expect(chronological([a, b, c]).map((e) => e.id)).toEqual(['b', 'c', 'a']);
  });
});

describe('buildSessions', () => {
  it('groups episodes by session id and ignores episodes without one', () => {
    const sessions = buildSessions(
      [episode('1', 's1', 'user', 0), episode('2', null, 'user', 1), episode('3', 's2', 'user', 2), episode('4', 's1', 'agent', 3)],
      [],
    );
    expect(sessions.map((s) => [s.session_id, s.episodes.map((e) => e.id)])).toEqual([
      ['s1', ['1', '4']],
      ['s2', ['3']],
    ]);
    expect(sessions.every((s) => s.status === 'unknown' && s.resolution === null)).toBe(true);
  });

  it('orders sessions by first message time, then session id', () => {
    const sessions = buildSessions([episode('1', 'b', 'user', 5), episode('2', 'c', 'user', 1), episode('3', 'a', 'user', 5)], []);
    expect(sessions.map((s) => s.session_id)).toEqual(['c', 'a', 'b']);
  });

  it('takes the first customer-like episode as the first message and the next agent-like one as the response', () => {
    const [s] = buildSessions(
      [episode('1', 's', 'system', 0), episode('2', 's', 'email', 1), episode('3', 's', 'chat', 2), episode('4', 's', 'tool', 9)],
      [],
    );
    expect(s.first_message_at).toEqual(at(2));
    expect(s.first_response_at).toEqual(at(9));
    expect(s.last_activity_at).toEqual(at(9));
  });

  it('counts an agent reply stamped in the same instant as the question as the response', () => {
    const [s] = buildSessions([episode('1', 's', 'user', 0), episode('2', 's', 'assistant', 0)], []);
    expect(s.first_response_at).toEqual(at(0));
  });

  it('falls back to the first episode without a customer-like one, never answering itself', () => {
    const [onlyAgent] = buildSessions([episode('1', 'a', 'assistant', 3)], []);
    expect(onlyAgent.first_message_at).toEqual(at(3));
    expect(onlyAgent.first_response_at).toBeNull();

    const [unknownSources] = buildSessions([episode('1', 'u', 'email', 3), episode('2', 'u', 'staff', 8)], []);
    expect(unknownSources.first_message_at).toEqual(at(3));
    expect(unknownSources.first_response_at).toEqual(at(8));
  });

  it('attaches the resolution record and lists a session only a resolution names', () => {
    const sessions = buildSessions([episode('1', 's1', 'user', 10)], [resolution('s1', 'resolved', 30, 20), resolution('s0', 'open', 45)]);
    const [s0, s1] = sessions;
    expect(s0).toMatchObject({ session_id: 's0', status: 'open', episodes: [], first_message_at: at(0), last_activity_at: at(45) });
    expect(s1).toMatchObject({ session_id: 's1', status: 'resolved', resolved_at: at(20), last_activity_at: at(30) });
  });

  it('keeps the latest record when the same session has two', () => {
    const older = resolution('s', 'resolved', 10, 10);
    const newer = { ...resolution('s', 'open', 20), id: 'r-newer' };
    const [s] = buildSessions([episode('1', 's', 'user', 0)], [newer, older]);
    expect(s.resolution?.id).toBe('r-newer');
    expect(s.status).toBe('open');
  });
});

describe('speakerLines', () => {
  it('reads role prefixes, continuation lines and the source for unprefixed text', () => {
    const e = episode('1', 's', 'chat', 0, 'Hello from the widget\nassistant: How can I help?\nUser: Export fails\nwith a timeout\nError: 504\n\n');
    expect(speakerLines(e).map((l) => [l.speaker, l.role, l.text])).toEqual([
      ['customer', 'chat', 'Hello from the widget'],
      ['agent', 'assistant', 'How can I help?'],
      ['customer', 'user', 'Export fails'],
      ['customer', 'user', 'with a timeout'],
      ['customer', 'user', 'Error: 504'],
    ]);
  });

  it('lets an unknown source speak as `other` until a known role appears', () => {
    const e = episode('1', 's', 'email', 0, 'Subject: refund\nagent: done');
    expect(speakerLines(e).map((l) => l.speaker)).toEqual(['other', 'agent']);
  });
});

describe('customerMessages', () => {
  it('joins the customer lines of each episode and skips episodes without any', () => {
    const [s] = buildSessions(
      [
        episode('1', 's', 'chat', 0, 'user: Hi\nassistant: Hello\nuser: My export fails'),
        episode('2', 's', 'assistant', 1, 'Restarted the worker'),
        episode('3', 's', 'user', 2, 'Still failing'),
      ],
      [],
    );
    expect(customerMessages(s).map((m) => [m.episode.id, m.text])).toEqual([
      ['1', 'Hi My export fails'],
      ['3', 'Still failing'],
    ]);
  });
});
