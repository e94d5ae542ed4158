/**
 * How the quality benches put a LoCoMo conversation into the service: one episode per turn
 * through POST /v1/episodes/batch (100 per call, in order), then one compile.
 */
import type { Client } from '../common/http';
import { Conversation, Turn } from './metrics';

/**
 * One turn as an episode: the session number as session_id, the session's date in
 * `payload.date`; the caption is part of what was said (the baselines see it too).
 */
export function episodeOf(subjectId: string, turn: Turn): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    messages: [{ role: turn.speaker, content: turn.text }],
    session: turn.session,
    date: turn.date,
  };
  if (turn.caption) payload.image_caption = turn.caption;
  return { subject_id: subjectId, source: 'chat', type: 'conversation', session_id: String(turn.session), payload };
}

/** Ingests and compiles the conversation under `subjectId`: each turn's episode id by its LoCoMo id, and the memories compiled. */
export async function ingestConversation(api: Client, subjectId: string, conv: Conversation): Promise<{ episodeIdOf: Map<string, string>; memoriesCreated: number }> {
  const episodeIdOf = new Map<string, string>();
  for (let i = 0; i < conv.turns.length; i += 100) {
    const chunk = conv.turns.slice(i, i + 100);
    const res = await api.call<{ episodes: { id: string }[] }>('POST', '/v1/episodes/batch', { episodes: chunk.map((t) => episodeOf(subjectId, t)) });
    res.episodes.forEach((e, k) => episodeIdOf.set(chunk[k].id, e.id));
  }
  const compiled = await api.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: subjectId });
  return { episodeIdOf, memoriesCreated: compiled.memories_created };
}
