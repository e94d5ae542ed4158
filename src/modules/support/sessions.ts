/**
 * Support sessions of one subject, built from its episodes and resolution records, and the
 * customer/agent reading of episode text that SLA, health and handoff share.
 */
import type { ResolutionRecord, SessionStatus, SupportEpisode } from './support.types';

/**
 * Who wrote something. `other` is any source compat.md does not name (`email`, `crm-sync`, …):
 * such an episode is still activity in its session, but it is neither the customer's first
 * message nor an agent's first response — guessing would fake SLA figures either way.
 */
export type Speaker = 'customer' | 'agent' | 'other';

// compat.md, "SLA": the source vocabularies deployed clients send.
const CUSTOMER_SOURCES: ReadonlySet<string> = new Set(['user', 'chat', 'support-chat', 'support_chat', 'customer', 'manual_input']);
const AGENT_SOURCES: ReadonlySet<string> = new Set(['assistant', 'agent', 'system', 'tool', 'support', 'staff']);

/** Case-insensitive; surrounding blanks are ignored. */
export function classifySource(source: string): Speaker {
  const key = source.trim().toLowerCase();
  if (CUSTOMER_SOURCES.has(key)) return 'customer';
  if (AGENT_SOURCES.has(key)) return 'agent';
  return 'other';
}

/** A session counts as open until it is resolved: `open`, `unresolved` and `unknown` alike. */
export function isOpenStatus(status: SessionStatus): boolean {
  return status !== 'resolved';
}

/**
 * When a resolved record was resolved. The service sets `resolved_at` with the status; rows
 * from older deployments or imports may lack it, and `updated_at` is then the latest moment the
 * resolution can have happened. Any other status has no resolution time.
 */
export function resolvedAtOf(resolution: ResolutionRecord): Date | null {
  if (resolution.status !== 'resolved') return null;
  return resolution.resolved_at ?? resolution.updated_at;
}

/**
 * Oldest first. Ties keep the caller's order (Array.prototype.sort is stable), so the
 * repository should read episodes ordered by (created_at, id); batch ingestion often gives a
 * whole conversation one timestamp.
 */
export function chronological(episodes: readonly SupportEpisode[]): SupportEpisode[] {
  return [...episodes].sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
}

export interface SupportSession {
  session_id: string;
  status: SessionStatus;
  resolution: ResolutionRecord | null;
  /** Chronological. Empty when only a resolution record names the session. */
  episodes: SupportEpisode[];
  /** First customer-like episode, else the first episode, else the resolution's creation. */
  first_message_at: Date;
  first_response_at: Date | null;
  resolved_at: Date | null;
  /** Latest episode or resolution update. */
  last_activity_at: Date;
}

/**
 * One session per session id seen on an episode or a resolution record, ordered by
 * first_message_at then session_id. Episodes without a session id belong to no session.
 * Callers that need message timings (SLA) keep only sessions with episodes.
 */
export function buildSessions(episodes: readonly SupportEpisode[], resolutions: readonly ResolutionRecord[]): SupportSession[] {
  const episodesBySession = new Map<string, SupportEpisode[]>();
  for (const episode of chronological(episodes)) {
    if (episode.session_id === null) continue;
    const list = episodesBySession.get(episode.session_id);
    if (list) list.push(episode);
    else episodesBySession.set(episode.session_id, [episode]);
  }
  // One record per (subject, session) is the contract; should duplicates reach us, the latest wins.
  const resolutionBySession = new Map<string, ResolutionRecord>();
  for (const resolution of resolutions) {
    const seen = resolutionBySession.get(resolution.session_id);
    if (!seen || resolution.updated_at.getTime() > seen.updated_at.getTime()) resolutionBySession.set(resolution.session_id, resolution);
  }

  const ids = new Set([...episodesBySession.keys(), ...resolutionBySession.keys()]);
  const sessions = [...ids].map((id) => toSession(id, episodesBySession.get(id) ?? [], resolutionBySession.get(id) ?? null));
  return sessions.sort((a, b) => a.first_message_at.getTime() - b.first_message_at.getTime() || compareStrings(a.session_id, b.session_id));
}

function toSession(sessionId: string, episodes: SupportEpisode[], resolution: ResolutionRecord | null): SupportSession {
  const firstEpisode = episodes[0];
  const firstMessage = episodes.find((e) => classifySource(e.source) === 'customer') ?? firstEpisode;
  const activity = episodes.map((e) => e.created_at.getTime());
  if (resolution) activity.push(resolution.updated_at.getTime());
  let firstResponseAt: Date | null = null;
  if (firstMessage) {
    const from = firstMessage.created_at.getTime();
    // `>=`: an answer ingested in the same batch as the question shares its timestamp. The
    // first-message episode itself is excluded, which matters when the fallback made an agent
    // episode the first message.
    const response = episodes.find((e) => e !== firstMessage && classifySource(e.source) === 'agent' && e.created_at.getTime() >= from);
    firstResponseAt = response ? response.created_at : null;
  }
  return {
    session_id: sessionId,
    status: resolution ? resolution.status : 'unknown',
    resolution,
    episodes,
    // A session always has an episode or a resolution, so one of the two is defined.
    first_message_at: firstMessage ? firstMessage.created_at : (resolution as ResolutionRecord).created_at,
    first_response_at: firstResponseAt,
    resolved_at: resolution ? resolvedAtOf(resolution) : null,
    last_activity_at: new Date(Math.max(...activity)),
  };
}

export interface SpeakerLine {
  speaker: Speaker;
  /** Lower-case role prefix of the line, or the episode source for unprefixed text. */
  role: string;
  text: string;
  episode: SupportEpisode;
}

const ROLE_PREFIX = /^([A-Za-z][\w-]{0,31})\s*:\s*(.*)$/;

/**
 * Non-blank lines of an episode with their speaker. Conversation text is `role: content` lines,
 * and one episode (source `chat`, say) may hold both sides, so a prefix naming a known role
 * decides the speaker. An unprefixed line continues the previous speaker's message; before any
 * prefix the episode's source speaks. Unknown prefixes (`Error: …`, `https://…`) are content.
 */
export function speakerLines(episode: SupportEpisode): SpeakerLine[] {
  let speaker = classifySource(episode.source);
  let role = episode.source.trim().toLowerCase();
  const lines: SpeakerLine[] = [];
  for (const raw of episode.text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.length === 0) continue;
    const match = ROLE_PREFIX.exec(line);
    const prefixed = match ? classifySource(match[1]) : 'other';
    if (match && prefixed !== 'other') {
      speaker = prefixed;
      role = match[1].toLowerCase();
      const text = match[2].trim();
      if (text.length > 0) lines.push({ speaker, role, text, episode });
    } else {
      lines.push({ speaker, role, text: line, episode });
    }
  }
  return lines;
}

export interface CustomerMessage {
  episode: SupportEpisode;
  /** The customer's lines of that episode joined by a space. */
  text: string;
}

/** The customer's words, one message per episode that has any, chronological. */
export function customerMessages(session: SupportSession): CustomerMessage[] {
  const messages: CustomerMessage[] = [];
  for (const episode of session.episodes) {
    const lines = speakerLines(episode).filter((l) => l.speaker === 'customer');
    if (lines.length > 0) messages.push({ episode, text: lines.map((l) => l.text).join(' ') });
  }
  return messages;
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
