import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { LruCache } from 'src/common/lru-cache';

/**
 * Token counting with the cl100k_base vocabulary (the one most chat models' budgets are
 * expressed in). Budgets in the contract are hard limits (`token_estimate <= max_tokens`), so
 * every budget check in the service goes through this one counter.
 *
 * js-tiktoken's BPE is quadratic in the length of one pre-tokenised piece, so a long run of
 * letters or whitespace (8,000 spaces took seconds) could stall a request. Runs longer than
 * RUN_PIECE are counted in RUN_PIECE-sized slices. Splitting a run only removes merges across
 * the cut, so the count can only grow: the result stays an upper bound of the exact count,
 * and every budget check uses this same function, so `token_estimate <= max_tokens` holds.
 */
let encoder: Tiktoken | undefined;
const RUN_PIECE = 128;
const LONG_RUN = new RegExp(`\\s{${RUN_PIECE},}|[^\\s]{${RUN_PIECE},}`, 'g');

/**
 * The encoder every count uses, built on first use. js-tiktoken also builds a decoding table
 * (token → bytes: a Uint8Array and its ArrayBuffer for each of cl100k's 100,256 tokens, 23.5 MB
 * of the 31 MB the encoder holds) that counting never reads. It is emptied: the service's live
 * heap is that much smaller under its `--max-old-space-size` cap, and every full collection has
 * 200,000 fewer objects to mark.
 */
export function getEncoder(): Tiktoken {
  if (encoder === undefined) {
    encoder = new Tiktoken(cl100k);
    dropDecodingTable(encoder);
  }
  return encoder;
}

/**
 * Empties js-tiktoken's decoding table (its internal `textMap`, in 1.0.x). Under another name
 * in a later version nothing is dropped and counting is unchanged; the tokenizer spec checks that
 * a fresh encoder still has the table under this name, so an upgrade that moves it is noticed.
 */
export function dropDecodingTable(e: Tiktoken): void {
  const table = (e as unknown as { textMap?: unknown }).textMap;
  if (table instanceof Map) table.clear();
}

function exact(text: string): number {
  return text.length === 0 ? 0 : getEncoder().encode(text).length;
}

/**
 * Where a text splits into pieces that tokenise independently: after a line break followed by
 * a non-space character. cl100k's pre-tokeniser never lets a piece run from a line break into
 * a following non-space character (line breaks end a piece, or join only other whitespace), and
 * BPE works within pieces, so the count of a text is the sum of the counts of these segments.
 */
const SEGMENT_END = /\n(?=\S)/g;

/**
 * Recently counted segments. A context bundle is mostly lines seen before (the same memories
 * and episodes rendered the same way), and js-tiktoken's BPE is the largest single cost of
 * assembling one; a hit makes a line's count a map lookup. Bounded by characters held too:
 * 20,000 segments of 2,000 characters would be 80 MB.
 */
const segmentCounts = new LruCache<string, number>(20_000, { max: 4_000_000, of: (segment) => segment.length });
/** Longer segments are counted each time: rare, and not worth their memory. */
const MAX_CACHED_SEGMENT = 2_000;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let total = 0;
  let start = 0;
  for (const m of text.matchAll(SEGMENT_END)) {
    total += countSegment(text.slice(start, m.index + 1));
    start = m.index + 1;
  }
  return total + countSegment(text.slice(start));
}

function countSegment(segment: string): number {
  if (segment.length > MAX_CACHED_SEGMENT) return countRuns(segment);
  return segmentCounts.get(segment) ?? segmentCounts.set(segment, countRuns(segment));
}

function countRuns(text: string): number {
  let total = 0;
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    total += exact(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += RUN_PIECE) total += exact(m[0].slice(i, i + RUN_PIECE));
    last = m.index + m[0].length;
  }
  return total + exact(text.slice(last));
}

/** Longest prefix of `text` whose count is at most `maxTokens` (binary search on length). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  if (countTokens(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(text.slice(0, mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  // Never end on the first half of a surrogate pair.
  const code = text.charCodeAt(lo - 1);
  if (lo > 0 && code >= 0xd800 && code <= 0xdbff) lo -= 1;
  return text.slice(0, lo);
}
