/**
 * Lexical and semantic task relevance for POST /v1/context.
 *
 * The contract gives relevance a range (0–5 as text, 0–8 as semantic) and the rule "word overlap,
 * or cosine similarity". Word overlap here is BM25: an overlap of stemmed content words weighted
 * by rarity (a shared "blood" says more than a shared "went") and damped by document length.
 */

/**
 * Function words and question words carry no topic: without this list "When did Caroline go to
 * the support group?" would match every turn containing "did", "go" or "the".
 */
const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing dont down during each else etc ever few for from ' +
    'further get got had has have having he her here hers herself him himself his how i if im in into ' +
    'is it its itself ive just let lets like me more most much must my myself no nor not now of off ' +
    'on once only or other ought our ours ourselves out over own really same say said shall she should ' +
    'so some such than that thats the their theirs them themselves then there these they this those ' +
    'through to too under until up upon us very was we were what whats when where which while who whom ' +
    'whose why will with would yeah yes you your yours yourself yourselves hey hi hello oh ok okay wow ' +
    'thanks thank also well one lot lots thing things way really'
  ).split(' '),
);

/** Words of at most this many letters are never stemmed ("was", "bus", "gas" keep their ending). */
const MIN_STEM_LENGTH = 4;

/**
 * A light suffix stripper: enough to join "paint", "paints", "painted" and "painting" or "study"
 * and "studies", without the over-stemming of a full Porter stemmer ("university" → "univers").
 * It only has to be consistent, since the query and the documents go through it alike.
 */
export function stem(word: string): string {
  if (word.length < MIN_STEM_LENGTH || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  const suffix = /(?:ing|(?<!e)ed)$/.exec(w);
  if (suffix && w.length - suffix[0].length >= 3) {
    w = w.slice(0, -suffix[0].length);
    // "running" → "runn" → "run", but "falling" keeps "fall", "missing" "miss", "adding" "add".
    if (w.length > 3 && /([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
  }
  // "make" and "making" both become "mak"; "love", "loved" and "loves" become "lov".
  if (w.endsWith('e') && w.length > MIN_STEM_LENGTH - 1 && !w.endsWith('ee')) w = w.slice(0, -1);
  return w;
}

/** Lowercased, stemmed content words of `text`, in order and with repeats. */
export function analyze(text: string): string[] {
  const words = text
    .toLowerCase()
    // "Caroline's" is about Caroline; "don't" is one (stop)word, not "don" + "t".
    .replace(/['’]s\b/g, '')
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u);
  const terms: string[] = [];
  for (const word of words) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

/** A query word as the database's full-text search sees it, and the stem BM25 scores it under. */
export interface QueryTerm {
  /** Stem from `analyze`: the key of `CorpusStats.df`. */
  term: string;
  /** The first spelling of the term in the query: lowercase ASCII letters and digits only. */
  word: string;
}

/**
 * Distinct content words of a query, for retrieval by the database (`to_tsquery`). Only plain
 * ASCII words qualify, so the tsquery text built from them needs no escaping; other words still
 * count in BM25 over the candidates, they just do not fetch any. At most `max`: a 4,000-character
 * task must not become a tsquery of hundreds of branches, and the longest words are the most
 * specific ones ("photography" says more than "went").
 */
export function queryTerms(text: string, max: number): QueryTerm[] {
  const seen = new Map<string, QueryTerm & { at: number }>();
  const words = text.toLowerCase().replace(/['’]s\b/g, '').replace(/['’]/g, '').split(/[^\p{L}\p{N}]+/u);
  words.forEach((word, at) => {
    if (word.length < 2 || STOPWORDS.has(word) || !/^[a-z0-9]+$/.test(word)) return;
    const term = stem(word);
    if (!seen.has(term)) seen.set(term, { term, word, at });
  });
  return [...seen.values()]
    .sort((a, b) => b.word.length - a.word.length || a.at - b.at)
    .slice(0, Math.max(0, max))
    .sort((a, b) => a.at - b.at)
    .map(({ term, word }) => ({ term, word }));
}

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

export function computeCorpusStats(docs: readonly (readonly string[])[]): CorpusStats {
  const df = new Map<string, number>();
  let totalLength = 0;
  for (const terms of docs) {
    totalLength += terms.length;
    for (const term of new Set(terms)) df.set(term, (df.get(term) ?? 0) + 1);
  }
  return {
    docCount: docs.length,
    avgDocLength: docs.length === 0 ? 0 : totalLength / docs.length,
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
 * once: a long task that repeats a word should not let that word drown the others.
 */
export function bm25Scores(query: string, docs: readonly string[], stats?: CorpusStats): number[] {
  const queryTerms = [...new Set(analyze(query))];
  const docTerms = docs.map(analyze);
  if (queryTerms.length === 0) return docs.map(() => 0);
  const corpus = stats ?? computeCorpusStats(docTerms);
  const weights = queryTerms.map((term) => idf(corpus, term));
  const avgLength = corpus.avgDocLength > 0 ? corpus.avgDocLength : 1;

  return docTerms.map((terms) => {
    if (terms.length === 0) return 0;
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    const lengthNorm = 1 - BM25_B + (BM25_B * terms.length) / avgLength;
    let score = 0;
    queryTerms.forEach((term, i) => {
      const f = tf.get(term);
      if (f !== undefined) score += (weights[i] * f * (BM25_K1 + 1)) / (f + BM25_K1 * lengthNorm);
    });
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
  return (TEXT_RELEVANCE_MAX * Math.min(score, bestScore)) / bestScore;
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
