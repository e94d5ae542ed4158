import { computeSla, DEFAULT_SLA_THRESHOLDS } from './sla';
import type { ResolutionRecord, SupportEpisode } from './support.types';
import { resolutionRecord } from '../../../test/fixtures/support-records';

const T0 = Date.parse('2025-03-01T09:00:00.000Z');
const at = (minutes: number): Date => new Date(T0 + minutes * 60_000);
const HOUR = 60;

function episode(id: string, session: string | null, source: string, minutes: number): SupportEpisode {
  return { id, session_id: session, source, type: 'conversation', text: `${source}: hello`, created_at: at(minutes) };
}

function resolution(session: string, status: ResolutionRecord['status'], resolvedMinutes: number | null = null): ResolutionRecord {
  const resolved = resolvedMinutes === null ? null : at(resolvedMinutes);
  return resolutionRecord(session, status, { created: at(0), updated: resolved ?? at(0), resolved });
}

const options = (nowMinutes: number) => ({ ...DEFAULT_SLA_THRESHOLDS, now: at(nowMinutes) });

describe('computeSla', () => {
  it('returns zero counts and numeric zero averages for a subject without sessions', () => {
    expect(computeSla('cust', [episode('1', null, 'user', 0)], [], options(10))).toEqual({
      subject_id: 'cust',
      total_sessions: 0,
      resolved_sessions: 0,
      open_sessions: 0,
      avg_first_response_seconds: 0,
      avg_resolution_seconds: 0,
      first_response_breach_count: 0,
      resolution_breach_count: 0,
      sessions: [],
    });
  });

  it('measures a resolved session from the first customer message', () => {
    const result = computeSla(
      'cust',
      [episode('0', 's1', 'system', -1), episode('1', 's1', 'user', 0), episode('2', 's1', 'assistant', 3), episode('3', 's1', 'user', 4)],
      [resolution('s1', 'resolved', 90)],
      options(10 * HOUR),
    );
    expect(result.sessions).toEqual([
      {
        session_id: 's1',
        status: 'resolved',
        first_message_at: '2025-03-01T09:00:00.000Z',
        first_response_at: '2025-03-01T09:03:00.000Z',
        resolved_at: '2025-03-01T10:30:00.000Z',
        first_response_seconds: 180,
        resolution_seconds: 5400,
        open_duration_seconds: null,
        first_response_breached: false,
        resolution_breached: false,
      },
    ]);
    expect(result).toMatchObject({ total_sessions: 1, resolved_sessions: 1, open_sessions: 0, avg_first_response_seconds: 180, avg_resolution_seconds: 5400 });
  });

  it('counts open and unresolved sessions as open, a session without a record in the total only, and gives each an open duration', () => {
    const result = computeSla(
      'cust',
      [episode('1', 'a', 'user', 0), episode('2', 'b', 'user', 0), episode('3', 'c', 'user', 0)],
      [resolution('a', 'open'), resolution('b', 'unresolved')],
      options(HOUR),
    );
    expect(result.sessions.map((s) => [s.session_id, s.status, s.open_duration_seconds, s.resolved_at, s.resolution_seconds])).toEqual([
      ['a', 'open', 3600, null, null],
      ['b', 'unresolved', 3600, null, null],
      ['c', 'unknown', 3600, null, null],
    ]);
    expect(result).toMatchObject({ total_sessions: 3, resolved_sessions: 0, open_sessions: 2, avg_resolution_seconds: 0 });
  });

  it('breaches strictly beyond the thresholds, not on them', () => {
    const result = computeSla(
      'cust',
      [
        episode('1', 'on', 'user', 0),
        episode('2', 'on', 'agent', 5),
        episode('3', 'beyond', 'user', 0),
        episode('4', 'beyond', 'agent', 5.01),
      ],
      [resolution('on', 'resolved', 24 * HOUR), resolution('beyond', 'resolved', 24 * HOUR + 1)],
      options(48 * HOUR),
    );
    expect(result.sessions.map((s) => [s.session_id, s.first_response_breached, s.resolution_breached])).toEqual([
      ['beyond', true, true],
      ['on', false, false],
    ]);
    expect(result).toMatchObject({ first_response_breach_count: 1, resolution_breach_count: 1 });
  });

  it('breaches an unanswered session once the customer has waited beyond the threshold', () => {
    const waiting = (nowMinutes: number) => computeSla('cust', [episode('1', 's', 'user', 0)], [], options(nowMinutes)).sessions[0];
    expect(waiting(5)).toMatchObject({ first_response_at: null, first_response_seconds: null, first_response_breached: false });
    expect(waiting(6).first_response_breached).toBe(true);
  });

  it('ends the wait of an unanswered session at its resolution', () => {
    const result = computeSla('cust', [episode('1', 'quick', 'user', 0), episode('2', 'slow', 'user', 0)], [resolution('quick', 'resolved', 2), resolution('slow', 'resolved', 30)], options(HOUR));
    expect(result.sessions.map((s) => [s.session_id, s.first_response_breached])).toEqual([
      ['quick', false],
      ['slow', true],
    ]);
  });

  it('breaches an open session once it has been open beyond the resolution threshold', () => {
    const open = (nowMinutes: number) => computeSla('cust', [episode('1', 's', 'user', 0)], [resolution('s', 'open')], options(nowMinutes)).sessions[0];
    expect(open(24 * HOUR).resolution_breached).toBe(false);
    expect(open(24 * HOUR + 1)).toMatchObject({ resolution_breached: true, open_duration_seconds: 86_460 });
  });

  it('applies custom thresholds, including zero', () => {
    const result = computeSla(
      'cust',
      [episode('1', 's', 'user', 0), episode('2', 's', 'agent', 0), episode('3', 't', 'user', 0), episode('4', 't', 'agent', 1)],
      [resolution('s', 'resolved', 0)],
      { firstResponseThresholdMinutes: 0, resolutionThresholdHours: 0, now: at(10) },
    );
    expect(result.sessions.map((s) => [s.session_id, s.first_response_breached, s.resolution_breached])).toEqual([
      ['s', false, false],
      ['t', true, true],
    ]);
  });

  it('averages only the sessions that have the figure, to the millisecond', () => {
    const result = computeSla(
      'cust',
      [
        episode('1', 'a', 'user', 0),
        episode('2', 'a', 'agent', 1),
        episode('3', 'b', 'user', 0),
        episode('4', 'b', 'agent', 1.5),
        episode('5', 'c', 'user', 0),
        episode('6', 'd', 'user', 0),
        episode('7', 'd', 'agent', 0.0001),
      ],
      [resolution('a', 'resolved', 10)],
      options(20),
    );
    // (60 + 90 + 0.006) / 3 = 50.002
    expect(result.avg_first_response_seconds).toBe(50.002);
    expect(result.avg_resolution_seconds).toBe(600);
  });

  it('leaves out sessions that only a resolution record names', () => {
    const result = computeSla('cust', [episode('1', 's', 'user', 0)], [resolution('ghost', 'open')], options(10));
    expect(result.sessions.map((s) => s.session_id)).toEqual(['s']);
    expect(result.total_sessions).toBe(1);
  });

  it('never reports negative durations when writers disagree about the clock', () => {
    const result = computeSla('cust', [episode('1', 's', 'user', 10), episode('2', 't', 'user', 10)], [resolution('s', 'resolved', 5)], options(0));
    expect(result.sessions.map((s) => [s.resolution_seconds, s.open_duration_seconds])).toEqual([
      [0, null],
      [null, 0],
    ]);
  });
});
