/**
 * SLA figures of one subject (GET /v1/subjects/{id}/sla). Rules beyond the contract, also in
 * docs/support.md:
 * - Sessions come from episodes with a session id; a resolution record without episodes has no
 *   message timings and is left out.
 * - Counts follow the resolution records (compat.md, "SLA"): a session is resolved or open only
 *   when a record says so (`resolved`; `open` or `unresolved`). A session without a record has
 *   status `unknown` and counts in total_sessions alone, so total_sessions can exceed
 *   resolved_sessions + open_sessions. Its per-session timings are still measured (nobody has
 *   resolved it, so it may breach).
 * - A breach is strictly beyond the threshold; exactly on it is met.
 * - First response: a session with no agent reply yet is breached once the customer has waited
 *   beyond the threshold, counting until the resolution if there is one, else until now.
 * - Resolution: an open session is breached once it has been open beyond the threshold — it can
 *   no longer be resolved in time.
 * - Averages are over the sessions that have the figure, rounded to the millisecond, and 0 when
 *   none has it: the contract types them as numbers and strict clients reject null.
 * - Per-session figures that do not exist yet (no reply, not resolved) are null, like their
 *   timestamps; 0 would read as an instant reply and skew client-side averages.
 */
import { buildSessions, type SupportSession } from './sessions';
import type { ResolutionRecord, SlaResult, SlaSessionItem, SupportEpisode } from './support.types';

export interface SlaThresholds {
  firstResponseThresholdMinutes: number;
  resolutionThresholdHours: number;
}

/** Contract defaults of GET /v1/subjects/{id}/sla. */
export const DEFAULT_SLA_THRESHOLDS: Readonly<SlaThresholds> = Object.freeze({
  firstResponseThresholdMinutes: 5,
  resolutionThresholdHours: 24,
});

export interface SlaOptions extends SlaThresholds {
  now: Date;
}

export function computeSla(
  subjectId: string,
  episodes: readonly SupportEpisode[],
  resolutions: readonly ResolutionRecord[],
  options: SlaOptions,
): SlaResult {
  const sessions = buildSessions(episodes, resolutions)
    .filter((s) => s.episodes.length > 0)
    .map((s) => sessionSla(s, options));
  const responses = sessions.flatMap((s) => (s.first_response_seconds === null ? [] : [s.first_response_seconds]));
  const resolutionTimes = sessions.flatMap((s) => (s.resolution_seconds === null ? [] : [s.resolution_seconds]));
  const resolved = sessions.filter((s) => s.status === 'resolved').length;
  const open = sessions.filter((s) => s.status === 'open' || s.status === 'unresolved').length;
  return {
    subject_id: subjectId,
    total_sessions: sessions.length,
    resolved_sessions: resolved,
    open_sessions: open,
    avg_first_response_seconds: average(responses),
    avg_resolution_seconds: average(resolutionTimes),
    first_response_breach_count: sessions.filter((s) => s.first_response_breached).length,
    resolution_breach_count: sessions.filter((s) => s.resolution_breached).length,
    sessions,
  };
}

/** The SLA item of one session that has episodes. */
export function sessionSla(session: SupportSession, options: SlaOptions): SlaSessionItem {
  const start = session.first_message_at.getTime();
  const now = options.now.getTime();
  const resolvedAt = session.resolved_at;
  const firstResponseSeconds = session.first_response_at ? secondsBetween(start, session.first_response_at.getTime()) : null;
  // A resolution recorded before the first message (a pre-opened ticket) counts as immediate.
  const resolutionSeconds = resolvedAt ? secondsBetween(start, resolvedAt.getTime()) : null;
  const openDurationSeconds = resolvedAt ? null : secondsBetween(start, now);
  const waitedSeconds = firstResponseSeconds ?? secondsBetween(start, resolvedAt ? resolvedAt.getTime() : now);
  return {
    session_id: session.session_id,
    status: session.status,
    first_message_at: session.first_message_at.toISOString(),
    first_response_at: session.first_response_at ? session.first_response_at.toISOString() : null,
    resolved_at: resolvedAt ? resolvedAt.toISOString() : null,
    first_response_seconds: firstResponseSeconds,
    resolution_seconds: resolutionSeconds,
    open_duration_seconds: openDurationSeconds,
    first_response_breached: waitedSeconds > options.firstResponseThresholdMinutes * 60,
    resolution_breached: (resolutionSeconds ?? openDurationSeconds ?? 0) > options.resolutionThresholdHours * 3600,
  };
}

/** Never negative: clock skew between writers must not produce negative durations. */
function secondsBetween(fromMs: number, toMs: number): number {
  return Math.max(0, toMs - fromMs) / 1000;
}

function average(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return Math.round(mean * 1000) / 1000;
}
