/**
 * Words as the retrieval and ranking code sees them: stop words dropped, a light stemmer, and
 * the plain words a full-text query (`to_tsquery`) is built from. Used by context ranking
 * (BM25) and by the candidate retrieval of context and semantic search.
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

/** Lowercased words of `text` in order, split on anything but letters and digits. */
function words(text: string): string[] {
  // "Caroline's" is about Caroline; "don't" is one (stop)word, not "don" + "t".
  return text.toLowerCase().replace(/['’]s\b/g, '').replace(/['’]/g, '').split(/[^\p{L}\p{N}]+/u);
}

/** Lowercased, stemmed content words of `text`, in order and with repeats. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
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
  words(text).forEach((word, at) => {
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
 * `to_tsquery('english', …)` text matching any of the text's content words (`'a' | 'b'`), or
 * null when it has none. Built from `queryTerms`, so it needs no escaping.
 */
export function anyWordTsQuery(text: string, maxTerms: number): string | null {
  const terms = queryTerms(text, maxTerms);
  return terms.length === 0 ? null : terms.map((t) => `'${t.word}'`).join(' | ');
}
