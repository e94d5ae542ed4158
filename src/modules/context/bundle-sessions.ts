import type { ContextSessionDto } from './dto/context.dto';
import type { ContextCandidate } from './ranking';

/**
 * The sessions of the included episodes (compat.md, "Context `sessions`"), sorted by session
 * id; an episode counts once whether it is in the bundle raw, summarised or both. Figures describe what the bundle
 * holds, not the whole session: reading every episode of a subject would break the bounded
 * reads of context assembly, and what the agent sees is what the figures should explain.
 */
export function bundleSessions(included: readonly ContextCandidate[]): ContextSessionDto[] {
  const bySession = new Map<string, { episodes: Set<string>; first: number; last: number }>();
  for (const item of included) {
    if (item.session_id === null || (item.label !== 'raw_episode' && item.label !== 'episode_summary')) continue;
    const at = item.created_at.getTime();
    const seen = bySession.get(item.session_id);
    if (seen === undefined) {
      bySession.set(item.session_id, { episodes: new Set(item.source_episode_ids), first: at, last: at });
      continue;
    }
    for (const id of item.source_episode_ids) seen.episodes.add(id);
    seen.first = Math.min(seen.first, at);
    seen.last = Math.max(seen.last, at);
  }
  return [...bySession]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([sessionId, s]) => ({
      session_id: sessionId,
      episode_count: s.episodes.size,
      first_at: new Date(s.first).toISOString(),
      last_at: new Date(s.last).toISOString(),
    }));
}
