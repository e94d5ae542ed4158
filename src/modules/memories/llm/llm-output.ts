/**
 * Run-time validation of what a model answered. Two levels:
 * - the reply as a whole must be a JSON object with a `memories` array (else
 *   InvalidOutputError: the compiler sends one repair turn, then gives up);
 * - each item is checked on its own; an invalid item is rejected with a reason and never
 *   stored, the valid ones go on.
 * Pure: no I/O, no clock.
 */
import { LLM_MEMORY_KINDS, MAX_CONTENT_CHARS, MAX_SUMMARY_CHARS } from './prompts';
import type { LlmMemoryKind } from './prompts';

/** More items than this from one chunk are rejected: a runaway reply must not flood a subject. */
export const MAX_ITEMS_PER_REPLY = 200;

export class InvalidOutputError extends Error {}

export interface ValidItem {
  kind: LlmMemoryKind;
  content: string;
  summary: string;
  confidence: number;
  /** Resolved episode ids (real ids, deduplicated, in the order given). */
  sourceEpisodeIds: string[];
  /** Resolved reference of the memory this one supersedes, or null. */
  supersedes: string | null;
}

export interface RejectedItem {
  index: number;
  reason: string;
}

export interface ValidatedReply {
  items: ValidItem[];
  rejected: RejectedItem[];
}

/**
 * Lookups from what the model may write to what it means: aliases (E1, M1) and, leniently,
 * the real ids they stand for.
 */
export interface ReplyContext {
  episodes: ReadonlyMap<string, string>;
  memories: ReadonlyMap<string, string>;
}

/** The reply's items array, read defensively: code fences, prose around the object, a bare array. */
export function parseReply(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidOutputError('the reply was empty');
  const value = parseLenient(trimmed);
  if (Array.isArray(value)) return value;
  if (typeof value !== 'object' || value === null) throw new InvalidOutputError('the reply is not a JSON object');
  const record = value as Record<string, unknown>;
  const items = record.memories ?? record.items;
  if (!Array.isArray(items)) throw new InvalidOutputError('the JSON object has no "memories" array');
  return items;
}

function parseLenient(text: string): unknown {
  const fenced = /^```[a-zA-Z]*\s*([\s\S]*?)\s*```$/.exec(text);
  const body = fenced ? fenced[1] : text;
  try {
    return JSON.parse(body);
  } catch (first) {
    const start = body.search(/[{[]/);
    const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
    if (start >= 0 && end > start) {
      try {
        return JSON.parse(body.slice(start, end + 1));
      } catch {
        // fall through to the first error, which describes the reply as sent
      }
    }
    throw new InvalidOutputError(`the reply is not valid JSON (${(first as Error).message.slice(0, 120)})`);
  }
}

export function validateReply(raw: unknown[], ctx: ReplyContext): ValidatedReply {
  const items: ValidItem[] = [];
  const rejected: RejectedItem[] = [];
  raw.forEach((item, index) => {
    if (index >= MAX_ITEMS_PER_REPLY) {
      rejected.push({ index, reason: `more than ${MAX_ITEMS_PER_REPLY} items` });
      return;
    }
    const result = validateItem(item, ctx);
    if (typeof result === 'string') rejected.push({ index, reason: result });
    else items.push(result);
  });
  return { items, rejected };
}

/** The valid item, or why it was rejected. */
export function validateItem(item: unknown, ctx: ReplyContext): ValidItem | string {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'not an object';
  const r = item as Record<string, unknown>;
  const kind = typeof r.kind === 'string' ? r.kind.trim().toLowerCase() : '';
  if (!(LLM_MEMORY_KINDS as readonly string[]).includes(kind)) return `invalid kind ${JSON.stringify(String(r.kind ?? '')).slice(0, 40)}`;
  if (typeof r.content !== 'string' || r.content.trim() === '') return 'empty content';
  const content = r.content.trim();
  if (content.length > MAX_CONTENT_CHARS) return `content longer than ${MAX_CONTENT_CHARS} characters`;
  if (typeof r.confidence !== 'number' || !Number.isFinite(r.confidence) || r.confidence < 0 || r.confidence > 1) return 'confidence not a number in 0..1';
  if (r.summary !== undefined && r.summary !== null && typeof r.summary !== 'string') return 'summary not a string';
  const summary = clip(typeof r.summary === 'string' ? r.summary.replace(/\s+/g, ' ').trim() : '', MAX_SUMMARY_CHARS);
  if (!Array.isArray(r.source_episode_ids) || r.source_episode_ids.length === 0) return 'no source_episode_ids';
  const sources: string[] = [];
  for (const ref of r.source_episode_ids) {
    const id = typeof ref === 'string' ? ctx.episodes.get(ref.trim()) : undefined;
    if (id === undefined) return `unknown source episode ${JSON.stringify(String(ref)).slice(0, 60)}`;
    if (!sources.includes(id)) sources.push(id);
  }
  let supersedes: string | null = null;
  const sup = r.supersedes_memory_id;
  if (typeof sup === 'string' && sup.trim() !== '' && sup.trim().toLowerCase() !== 'null') {
    const ref = ctx.memories.get(sup.trim());
    if (ref === undefined) return `unknown supersedes_memory_id ${JSON.stringify(sup).slice(0, 60)}`;
    supersedes = ref;
  } else if (sup !== undefined && sup !== null && typeof sup !== 'string') {
    return 'supersedes_memory_id not a string';
  }
  return { kind: kind as LlmMemoryKind, content, summary, confidence: r.confidence, sourceEpisodeIds: sources, supersedes };
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 2);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}
