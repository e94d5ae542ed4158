/**
 * The pure half of POST /v1/context: candidates in, packed bundle out. The service feeds it the
 * rows its bounded SQL fetched; the offline quality bench (bench/quality/offline-eval.ts) feeds
 * it a whole compiled conversation, so both measure the same ranking and packing.
 */
import type { WordVectors } from 'src/common/text/word-vectors';
import { packContext, PackResult } from './packing';
import { ContextCandidate, dropDuplicates, scoreCandidates, selectCandidates } from './ranking';

export interface AssembleOptions {
  maxTokens: number;
  sessionId?: string | null;
  now: Date;
  /** Static word vectors for expanding the task's words (ranking.ts ScoreOptions.wordVectors). */
  wordVectors?: WordVectors | null;
}

export function assembleContext(subjectId: string, task: string, candidates: readonly ContextCandidate[], opts: AssembleOptions): PackResult {
  const sessionId = opts.sessionId ?? null;
  const ranked = dropDuplicates(scoreCandidates(task, [...candidates].sort(byTimeThenSeq), { now: opts.now, sessionId, wordVectors: opts.wordVectors }));
  return packContext({
    subjectId,
    task,
    maxTokens: opts.maxTokens,
    ranked: selectCandidates(ranked, { maxTokens: opts.maxTokens, sessionId }),
    currentSessionId: sessionId,
  });
}

/** Input order for ranking: the neighbour boost and every tie-break then see time order. */
export function byTimeThenSeq(a: ContextCandidate, b: ContextCandidate): number {
  return (
    a.created_at.getTime() - b.created_at.getTime() ||
    (a.seq ?? 0) - (b.seq ?? 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
