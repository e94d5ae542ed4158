/**
 * What of a subject's episodes and memories goes into each model request, within token
 * budgets (cl100k counts, the service's one tokenizer). Pure.
 */
import { countTokens, truncateToTokens } from 'src/common/text/tokenizer';
import { episodeText } from 'src/compiler/episode-text';
import type { CompilerEpisode } from 'src/compiler/compiler.types';
import type { PromptEpisode, PromptMemory } from './prompts';

/** Tokens of an episode's header line and separators, counted against the chunk. */
const EPISODE_OVERHEAD_TOKENS = 40;
const TRUNCATED = '\n[… episode cut to fit the request]';

export interface EpisodeChunk {
  episodes: { episode: CompilerEpisode; prompt: PromptEpisode }[];
  tokens: number;
}

/**
 * Episodes in order, packed greedily into chunks of at most `chunkTokens` tokens of text each.
 * An episode longer than a chunk is cut to fit one (its opening is kept) rather than dropped:
 * it is still compiled, and the cut is visible to the model. Aliases run E1, E2, … per chunk.
 */
export function chunkEpisodes(episodes: CompilerEpisode[], chunkTokens: number): EpisodeChunk[] {
  const room = Math.max(16, chunkTokens - EPISODE_OVERHEAD_TOKENS);
  const chunks: EpisodeChunk[] = [];
  let current: EpisodeChunk = { episodes: [], tokens: 0 };
  for (const episode of episodes) {
    let text = renderEpisodeText(episode, room);
    let tokens = countTokens(text);
    if (tokens > room) {
      text = truncateToTokens(text, room - countTokens(TRUNCATED)) + TRUNCATED;
      tokens = countTokens(text);
    }
    const cost = tokens + EPISODE_OVERHEAD_TOKENS;
    if (current.episodes.length > 0 && current.tokens + cost > chunkTokens) {
      chunks.push(current);
      current = { episodes: [], tokens: 0 };
    }
    const alias = `E${current.episodes.length + 1}`;
    current.episodes.push({ episode, prompt: { alias, header: episodeHeader(episode), text } });
    current.tokens += cost;
  }
  if (current.episodes.length > 0) chunks.push(current);
  return chunks;
}

function episodeHeader(e: CompilerEpisode): string {
  const parts = [`time=${e.created_at.toISOString()}`, `source=${oneLine(e.source, 64)}`, `type=${oneLine(e.type, 64)}`];
  if (e.session_id !== null) parts.push(`session=${oneLine(e.session_id, 64)}`);
  return parts.join(' ');
}

/** Conversation lines (`role: text`), text-like fields, or as a last resort the payload's JSON. */
function renderEpisodeText(e: CompilerEpisode, maxTokens: number): string {
  // ~4 characters per token; the token cut afterwards is exact.
  const maxChars = Math.min(2_000_000, maxTokens * 6);
  const text = episodeText(e.payload, maxChars);
  if (text.trim() !== '') return text;
  let json: string;
  try {
    json = JSON.stringify(e.payload) ?? '';
  } catch {
    json = '';
  }
  return json.length > maxChars ? json.slice(0, maxChars) : json || '(empty payload)';
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max) : flat;
}

export interface KnownMemory {
  /** What supersedes_memory_id resolves to: an existing memory's id or a draft of this compile. */
  ref: string;
  kind: string;
  content: string;
}

/** Per memory shown to the model: long procedures are cut, the model only needs to recognise them. */
const MEMORY_LINE_TOKENS = 120;

/**
 * Memories shown to the model, newest first as given, until `budgetTokens` is spent. Aliases
 * M1, M2, … in the order shown. Returns the prompt lines and the alias → ref lookup.
 */
export function pickMemories(known: KnownMemory[], budgetTokens: number, maxCount: number): { prompt: PromptMemory[]; refs: Map<string, string> } {
  const prompt: PromptMemory[] = [];
  const refs = new Map<string, string>();
  let spent = 0;
  for (const m of known) {
    if (prompt.length >= maxCount) break;
    const content = truncateToTokens(m.content.replace(/\s+/g, ' ').trim(), MEMORY_LINE_TOKENS);
    const cost = countTokens(content) + 8;
    if (spent + cost > budgetTokens) break;
    spent += cost;
    const alias = `M${prompt.length + 1}`;
    prompt.push({ alias, kind: m.kind, content });
    refs.set(alias, m.ref);
  }
  return { prompt, refs };
}
