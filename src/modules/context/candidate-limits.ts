/**
 * How many candidates POST /v1/context reads for a budget: the bounds of every SQL branch in
 * context.repository.ts. Pure, so the rules below are specified beside it (candidate-limits.spec.ts).
 */
import type { CandidateLimits } from './context.repository';

/**
 * Candidate bounds at the default budget (1,000 tokens): 100 full-text hits per table (200 for
 * memories, see below), 20 per table of the task words' variants, two episodes on each side of
 * the best 30 episode hits, the 50 nearest memories by embedding, the newest 30 items and the
 * newest 30 facts and procedures: a few hundred items, several times what the budget shows, so
 * ranking still chooses, while the request stays within its latency target. The variants' bound
 * is a bound, not a tuned figure (the one value measured, bench/README.md round 12): few texts
 * hold a variant of a task word and not the word.
 */
const BASE: Omit<CandidateLimits, 'memoryText'> = { text: 100, variants: 20, recent: 30, pinned: 30, neighboursOf: 30, semantic: 50 };

/**
 * A large budget is filled with the best remaining items once the relevant ones are in
 * (compat.md: "Context fills its budget"), so the newest-items branches grow with it: one item
 * per 40 tokens of budget (a short turn with its line costs about that), never fewer than the
 * figures above, and at most 400 per branch so that a 128,000-token request stays a bounded read.
 */
const TOKENS_PER_RECENT_ITEM = 40;
const MAX_RECENT = 400;

/**
 * The fewest and the most full-text hits of memories a budget reads: as many as the episode hits
 * below 500 tokens, and at most 1,000 so that a 128,000-token request stays a bounded read.
 */
const MIN_MEMORY_TEXT_HITS = 100;
const MAX_MEMORY_TEXT_HITS = 1_000;

/**
 * Memory hits: one per 5 tokens of budget up to 1,000 tokens (200 there), one per 20 tokens
 * beyond (250 at 2,000, 350 at 4,000, 1,000 from 17,000 up). A memory is a compiled
 * fact or summary: a short row that cites its turns, so a deeper memory read costs less than a
 * deeper episode read and gives ranking more evidence per token.
 *
 * Up to 1,000 tokens the rate is chosen by recall: on LoCoMo at 1,000 tokens, 100 / 150 / 200 /
 * 300 / 400 memory hits gave 81.4 / 81.8 / 82.4 / 82.6 / 82.2% evidence recall (temporal
 * questions 90.6 → 91.2%, the BM25 + 8); chosen leave-one-conversation-out, the rate the
 * other four conversations pick raised four of the five held out (bench/README.md, round 10).
 *
 * Above it recall saturates while the cost does not: at 2,000 tokens 250 / 300 / 400 hits gave
 * 87.8 / 88.2 / 88.4% (each conversation 0.2–0.7 points lower at 250 than at 400, none
 * favoured), and in one interleaved run p50 36.5 / 38.3 / 42.1 ms against 38.7 ms for the build
 * issue 21 was filed on (about 37 µs per hit: the row, its rank and its ranking). The slower rate
 * is the one that keeps every budget's latency no worse than that build's while 2,000 tokens
 * keeps its recall target (bench/README.md, "Memory hits above 1,000 tokens").
 *
 * Episode hits stay at 100 at every budget. Once the memory hits grew with the budget, deeper
 * episode hits (they used to grow to 400 at 2,000 tokens) bought almost nothing and cost the most:
 * an episode row carries its payload, and a compiled episode's text is already among the memory
 * hits as its summary. On LoCoMo at 2,000 tokens 100 episode hits gave 87.2% evidence recall
 * against 87.5% with 400 (held out, the depth the other four conversations pick moved a
 * conversation by +0.1 points on average), at 4,000 and 8,000 tokens 92.4 / 96.4% against
 * 92.1 / 96.2%, and on PGlite 2,000 tokens went from 35.3 / 52.7 to 29.0 / 43.5 ms p50 / p95,
 * level with the build issue 21 was filed on (bench/README.md, "Episode text hits at 2,000
 * tokens").
 */
const MEMORY_HITS_FULL_RATE_UP_TO = 1_000;
const TOKENS_PER_MEMORY_HIT = 5;
const TOKENS_PER_MEMORY_HIT_ABOVE = 20;

function memoryTextHits(maxTokens: number): number {
  const fullRate = Math.min(maxTokens, MEMORY_HITS_FULL_RATE_UP_TO) / TOKENS_PER_MEMORY_HIT;
  const slowRate = Math.max(0, maxTokens - MEMORY_HITS_FULL_RATE_UP_TO) / TOKENS_PER_MEMORY_HIT_ABOVE;
  return Math.min(MAX_MEMORY_TEXT_HITS, Math.max(MIN_MEMORY_TEXT_HITS, Math.ceil(fullRate + slowRate)));
}

export function candidateLimits(maxTokens: number): CandidateLimits {
  const recent = Math.min(MAX_RECENT, Math.max(BASE.recent, Math.ceil(maxTokens / TOKENS_PER_RECENT_ITEM)));
  return { ...BASE, memoryText: memoryTextHits(maxTokens), recent, pinned: Math.max(BASE.pinned, recent) };
}
