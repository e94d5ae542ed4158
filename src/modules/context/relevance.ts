/**
 * Lexical and semantic task relevance for POST /v1/context.
 *
 * The contract gives relevance a range (0–5 as text, 0–8 as semantic) and the rule "word overlap,
 * or cosine similarity". Word overlap here is BM25: an overlap of stemmed content words weighted
 * by rarity (a shared "blood" says more than a shared "went") and damped by document length.
 */

import { analyze } from 'src/common/text/terms';

/**
 * Document frequencies of the corpus the documents are drawn from. For a large subject the
 * service only scores a fetched subset, whose own frequencies would misjudge rarity; then the
 * repository supplies subject-wide figures. Otherwise they are computed from the documents.
 */
export interface CorpusStats {
  readonly docCount: number;
  readonly avgDocLength: number;
  df(term: string): number;
}

export function computeCorpusStats(docs: readonly (readonly string[])[], copies?: readonly number[]): CorpusStats {
  const df = new Map<string, number>();
  let totalLength = 0;
  let docCount = 0;
  docs.forEach((terms, i) => {
    // `copies[i]` documents with these terms: a field value many items share is analysed once.
    const n = copies?.[i] ?? 1;
    docCount += n;
    totalLength += n * terms.length;
    for (const term of new Set(terms)) df.set(term, (df.get(term) ?? 0) + n);
  });
  return {
    docCount,
    avgDocLength: docCount === 0 ? 0 : totalLength / docCount,
    df: (term) => df.get(term) ?? 0,
  };
}

/** Standard Okapi parameters: term-frequency saturation and length normalisation. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/**
 * Lucene's non-negative BM25 idf. `df` is clamped into [0, docCount] because supplied stats may
 * lag behind the documents scored (a memory written after the stats were read).
 */
function idf(stats: CorpusStats, term: string): number {
  const n = Math.max(stats.docCount, 1);
  const df = Math.min(Math.max(stats.df(term), 0), n);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * BM25 score of each document for the query, in document order. Each distinct query term counts
 * once: a long task that repeats a word should not let that word drown the others. `expansion`
 * adds terms (stems) the query does not have, each with a weight that scales its idf (a query
 * term weighs 1); a term the query has keeps weight 1.
 */
export function bm25Scores(query: string, docs: readonly string[], stats?: CorpusStats, expansion?: ReadonlyMap<string, number>): number[] {
  return bm25TermScores(analyze(query), docs.map(analyze), stats, expansion);
}

/**
 * `bm25Scores` over texts already analysed (`analyze`): the context path analyses each candidate
 * once per request and scores its text with the same terms the query expansion reads. Only the
 * query's terms are counted, in one pass over each document's terms into a reused array, so a
 * document costs no map or set of its own; without `stats`, document frequencies of those terms
 * come from the same pass (what `computeCorpusStats` would give for them).
 */
export function bm25TermScores(
  query: readonly string[],
  docTerms: readonly (readonly string[])[],
  stats?: CorpusStats,
  expansion?: ReadonlyMap<string, number>,
): number[] {
  const original = [...new Set(query)];
  if (original.length === 0) return docTerms.map(() => 0);
  const added = [...(expansion ?? [])].filter(([term, weight]) => weight > 0 && !original.includes(term));
  const queryTerms = [...original, ...added.map(([term]) => term)];
  const slot = new Map(queryTerms.map((term, k) => [term, k]));
  const q = queryTerms.length;

  let corpus = stats;
  if (corpus === undefined) {
    const df = new Int32Array(q);
    const lastDoc = new Int32Array(q).fill(-1);
    let totalLength = 0;
    docTerms.forEach((terms, d) => {
      totalLength += terms.length;
      for (const term of terms) {
        const k = slot.get(term);
        if (k !== undefined && lastDoc[k] !== d) {
          lastDoc[k] = d;
          df[k]++;
        }
      }
    });
    corpus = {
      docCount: docTerms.length,
      avgDocLength: docTerms.length === 0 ? 0 : totalLength / docTerms.length,
      df: (term) => {
        const k = slot.get(term);
        return k === undefined ? 0 : df[k];
      },
    };
  }
  const weights = [...original.map((term) => idf(corpus, term)), ...added.map(([term, weight]) => weight * idf(corpus, term))];
  const avgLength = corpus.avgDocLength > 0 ? corpus.avgDocLength : 1;

  const tf = new Int32Array(q);
  return docTerms.map((terms) => {
    if (terms.length === 0) return 0;
    for (const term of terms) {
      const k = slot.get(term);
      if (k !== undefined) tf[k]++;
    }
    const lengthNorm = 1 - BM25_B + (BM25_B * terms.length) / avgLength;
    // Summed in query-term order, so that the same inputs give the same floating-point score.
    let score = 0;
    for (let k = 0; k < q; k++) {
      const f = tf[k];
      if (f === 0) continue;
      tf[k] = 0;
      score += (weights[k] * f * (BM25_K1 + 1)) / (f + BM25_K1 * lengthNorm);
    }
    return score;
  });
}
export const TEXT_RELEVANCE_MAX = 5;
export const SEMANTIC_RELEVANCE_MAX = 8;

/**
 * Text relevance on the contract's 0–5 scale: the share of the best BM25 score among the
 * candidates. Relative rather than absolute because BM25 has no fixed maximum (it grows with
 * the number of query terms), and a long task must still separate its best matches from noise.
 */
export function textRelevance(score: number, bestScore: number): number {
  if (bestScore <= 0 || score <= 0) return 0;
  // Clamped: (5 × s) / s is not always exactly 5 in floating point, and the range is the contract's.
  return Math.min(TEXT_RELEVANCE_MAX, (TEXT_RELEVANCE_MAX * Math.min(score, bestScore)) / bestScore);
}

/**
 * How much of the semantic scale comes from the embedding. The rest stays lexical, because
 * embeddings blur exact identifiers (order numbers, error codes, names) that a task may hinge on.
 */
const SEMANTIC_WEIGHT = 0.75;

/**
 * Semantic relevance on the contract's 0–8 scale from a cosine similarity in [-1, 1] and the
 * item's text relevance (0–5). Negative or absent similarity means "unrelated", not "opposite".
 */
export function semanticRelevance(cosine: number, textRelevanceScore: number): number {
  const similarity = Number.isFinite(cosine) ? Math.min(Math.max(cosine, 0), 1) : 0;
  const lexical = Math.min(Math.max(textRelevanceScore / TEXT_RELEVANCE_MAX, 0), 1);
  return SEMANTIC_RELEVANCE_MAX * (SEMANTIC_WEIGHT * similarity + (1 - SEMANTIC_WEIGHT) * lexical);
}
