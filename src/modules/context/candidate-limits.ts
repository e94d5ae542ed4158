/**
 * How many candidates POST /v1/context reads for a budget: the bounds of every SQL branch in
 * context.repository.ts. Pure, so the rules below are specified beside it (candidate-limits.spec.ts).
 */
import type { CandidateLimits } from './context.repository';

/**
 * Candidate bounds at the default budget (1,000 tokens): 100 full-text hits per table (200 for
 * memories, see below), the neighbours of the best 30 episode hits, the 50 nearest memories by
 * embedding, the newest 30 items and the newest 30 facts and procedures: a few hundred items,
 * several times what the budget shows, so ranking still chooses, while the request stays within
 * its latency target.
 */
const BASE: Omit<CandidateLimits, 'memoryText'> = { text: 100, recent: 30, pinned: 30, neighboursOf: 30, semantic: 50 };

/**
 * A large budget is filled with the best remaining items once the relevant ones are in
 * (compat.md: "Context fills its budget"), so the newest-items branches grow with it: one item
 * per 40 tokens of budget (a short turn with its line costs about that), never fewer than the
 * figures above, and at most 400 per branch so that a 128,000-token request stays a bounded read.
 */
const TOKENS_PER_RECENT_ITEM = 40;
const MAX_RECENT = 400;

/**
 * The full-text hits deepen with the budget beyond the default: 3 more per table for every 10
 * tokens above 1,000 (400 at 2,000 tokens), at most 1,000. The database orders hits by ts_rank,
 * which counts matches; ranking re-scores them (BM25 by rarity, neighbours, fields, expansion)
 * and a larger bundle reaches deeper into that order: on LoCoMo, evidence recall at 2,000 tokens
 * rose from 86.1% with 100 hits to 86.8 / 87.2 / 87.5 / 87.5% with 300 / 350 / 400 / 500
 * (bench/README.md, round 8; chosen leave-one-conversation-out).
 */
const DEFAULT_DEPTH_TOKENS = 1_000;
const TEXT_HITS_PER_EXTRA_TOKEN = 0.3;
const MAX_TEXT_HITS = 1_000;

/**
 * Memory hits are at least one per 5 tokens of budget at every budget (200 at 1,000 tokens,
 * 400 at 2,000 as above). A memory is a compiled fact or summary: a short row that cites its
 * turns, so a deeper memory read costs less than a deeper episode read and gives ranking more
 * evidence per token. On LoCoMo at 1,000 tokens, 100 / 150 / 200 / 300 / 400 memory hits gave
 * 81.4 / 81.8 / 82.4 / 82.6 / 82.2% evidence recall (temporal questions 90.6 → 91.2%, the issue's
 * BM25 + 8); chosen leave-one-conversation-out, the rate the other four conversations pick raised
 * four of the five held out (bench/README.md, round 10). The price at 1,000 tokens: p50 +6% on
 * PostgreSQL, +16% on PGlite. Episode hits stay at 100 there: 200 of them cost more for less.
 */
const MEMORY_HITS_PER_TOKEN = 0.2;

export function candidateLimits(maxTokens: number): CandidateLimits {
  const recent = Math.min(MAX_RECENT, Math.max(BASE.recent, Math.ceil(maxTokens / TOKENS_PER_RECENT_ITEM)));
  const extra = Math.max(0, maxTokens - DEFAULT_DEPTH_TOKENS);
  const text = Math.min(MAX_TEXT_HITS, BASE.text + Math.ceil(extra * TEXT_HITS_PER_EXTRA_TOKEN));
  const memoryText = Math.min(MAX_TEXT_HITS, Math.max(text, Math.ceil(maxTokens * MEMORY_HITS_PER_TOKEN)));
  return { ...BASE, text, memoryText, recent, pinned: Math.max(BASE.pinned, recent) };
}
