import type { Episode, Memory } from './api.js';

/** One row of a subject's timeline: an episode or a memory, placed at the time it happened. */
export type TimelineItem = { type: 'episode'; at: string; episode: Episode } | { type: 'memory'; at: string; memory: Memory };

export interface TimelineFilters {
  /** '' = all; 'episode' = episodes only; a memory kind = memories of that kind. */
  kind: string;
  /** '' = all; a memory status (active, superseded, tombstoned). Episodes are kept only when ''. */
  status: string;
  /** '' = all; episodes of that session and the memories compiled from them. */
  session: string;
  /** Case-insensitive text search in content and payload. */
  text: string;
  /** Comma-separated sensitivity labels: memories holding any of them (episodes are left out). */
  labels: string;
}

export const NO_FILTERS: TimelineFilters = { kind: '', status: '', session: '', text: '', labels: '' };

/**
 * Episodes and memories interleaved in time, newest first. A memory is placed at valid_from
 * (when it became true: its source episode's time), not at the compile that wrote it, so it sits
 * beside the conversation it came from. Ties: memories after the episode they came from.
 */
export function buildTimeline(episodes: readonly Episode[], memories: readonly Memory[], f: TimelineFilters = NO_FILTERS): TimelineItem[] {
  const sessionOf = new Map(episodes.map((e) => [e.id, e.session_id]));
  const text = f.text.trim().toLowerCase();
  const labels = (f.labels ?? '').split(',').map((l) => l.trim().toLowerCase()).filter(Boolean);
  const items: TimelineItem[] = [];
  if ((f.kind === '' || f.kind === 'episode') && f.status === '' && labels.length === 0) {
    for (const e of episodes) {
      if (f.session && e.session_id !== f.session) continue;
      if (text && !episodeText(e).toLowerCase().includes(text)) continue;
      items.push({ type: 'episode', at: e.created_at, episode: e });
    }
  }
  if (f.kind !== 'episode') {
    for (const m of memories) {
      if (f.kind && m.kind !== f.kind) continue;
      if (f.status && m.status !== f.status) continue;
      if (f.session && !m.source_episode_ids.some((id) => sessionOf.get(id) === f.session)) continue;
      if (text && !`${m.content} ${m.summary ?? ''}`.toLowerCase().includes(text)) continue;
      if (labels.length && !(m.sensitivity_labels ?? []).some((l) => labels.includes(l))) continue;
      items.push({ type: 'memory', at: m.valid_from, memory: m });
    }
  }
  return items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.type === b.type ? 0 : a.type === 'memory' ? -1 : 1));
}

/** What an episode says, for rows and search: its messages or the payload's text when it has them, else its JSON. */
export function episodeText(e: Episode): string {
  const p = e.payload ?? {};
  const messages = (p as { messages?: unknown }).messages;
  if (Array.isArray(messages)) {
    return messages
      .map((m: unknown) => (m && typeof m === 'object' ? `${String((m as { role?: unknown }).role ?? '')}: ${String((m as { content?: unknown }).content ?? '')}` : String(m)))
      .join(' · ');
  }
  for (const key of ['content', 'text', 'message', 'body']) {
    const v = (p as Record<string, unknown>)[key];
    if (typeof v === 'string') return v;
  }
  return JSON.stringify(p);
}

/** Sessions and memory kinds present, for the filter pickers. */
export function facets(episodes: readonly Episode[], memories: readonly Memory[]): { sessions: string[]; kinds: string[]; statuses: string[] } {
  const uniq = (xs: Iterable<string | null | undefined>) => [...new Set([...xs].filter((x): x is string => !!x))].sort();
  return { sessions: uniq(episodes.map((e) => e.session_id)), kinds: uniq(memories.map((m) => m.kind)), statuses: uniq(memories.map((m) => m.status)) };
}

/**
 * The versions around a memory, among the memories loaded: the ones it replaced and the ones that
 * replaced it. Two links, either enough: `superseded_by` on a superseded record (every
 * supersession, a compile's included) and `metadata.supersedes` on the newer one (correct and
 * remember write it).
 */
export function versionsOf(memory: Memory, memories: readonly Memory[]): { supersedes: string[]; supersededBy: string[] } {
  const supersedes = distinct([...supersedesOf(memory), ...memories.filter((m) => m.superseded_by === memory.id).map((m) => m.id)]);
  const supersededBy = distinct([...(memory.superseded_by ? [memory.superseded_by] : []), ...memories.filter((m) => supersedesOf(m).includes(memory.id)).map((m) => m.id)]);
  return { supersedes, supersededBy };
}

const distinct = (xs: string[]): string[] => [...new Set(xs)];

function supersedesOf(m: Memory): string[] {
  const s = m.metadata?.supersedes;
  return Array.isArray(s) ? s.filter((x): x is string => typeof x === 'string') : [];
}
