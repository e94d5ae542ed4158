/**
 * The offline benches' candidates: what the service would hold for a set of episodes after one
 * compile, had it fetched everything. One mapping for the LoCoMo and the support benches, shaped
 * as the service shapes its rows (context.service.ts `memoryCandidate` / `episodeCandidate`): a
 * memory is placed by its first source episode (session for a summary, sequence, date label),
 * an episode by its own `payload.date`.
 */
import { episodeText } from 'src/compiler/episode-text';
import { compileHeuristic } from 'src/compiler/heuristic-compiler';
import type { CompilerEpisode } from 'src/compiler/compiler.types';
import { ContextCandidate, ContextLabel, MEMORY_LABELS, recordedAt } from 'src/modules/context/ranking';
import { candidateSpeakers } from 'src/modules/context/speakers';

/** The client's date label of an episode, as the service reads it: `payload.date` when a string. */
function dateLabel(e: CompilerEpisode): string | null {
  const date = (e.payload as { date?: unknown } | null)?.date;
  return typeof date === 'string' ? date : null;
}

/** Active memories compiled from `episodes` (ids `m0`, `m1`, …), then the episodes themselves, in order. */
export function compiledCandidates(episodes: readonly CompilerEpisode[]): ContextCandidate[] {
  const placed = new Map(episodes.map((e, seq) => [e.id, { episode: e, seq }]));
  const plan = compileHeuristic([...episodes], []);
  const memories = plan.drafts
    .filter((d) => d.status === 'active' && MEMORY_LABELS.has(d.kind))
    .map((d, i): ContextCandidate => {
      const source = placed.get(d.source_episode_ids[0]);
      const date = source ? dateLabel(source.episode) : null;
      const summary = d.kind === 'episode_summary';
      return {
        id: `m${i}`,
        label: d.kind as ContextLabel,
        text: d.content,
        created_at: d.valid_from,
        valid_to: d.valid_to,
        session_id: summary ? (source?.episode.session_id ?? null) : null,
        source_episode_ids: d.source_episode_ids,
        seq: source?.seq,
        date_label: summary ? date : null,
        recorded_at: recordedAt(date),
        speakers: candidateSpeakers(d),
      };
    });
  const raw = episodes.map((e, seq): ContextCandidate => {
    const date = dateLabel(e);
    return {
      id: e.id,
      label: 'raw_episode',
      text: episodeText(e.payload),
      created_at: e.created_at,
      valid_to: null,
      session_id: e.session_id,
      source_episode_ids: [e.id],
      seq,
      date_label: date,
      recorded_at: recordedAt(date),
      speakers: candidateSpeakers(e),
    };
  });
  return [...memories, ...raw];
}
