/**
 * The one text analysis of retrieval and ranking: how a text becomes words, which words carry
 * no topic, and what a word's stem is. It mirrors PostgreSQL's `english` text-search
 * configuration, which builds the `content_tsv` columns that candidates are fetched from and the
 * `to_tsquery('english', …)` they are fetched with, so the words that fetch a candidate are the
 * words that score it: the Snowball English (Porter2) stemmer PostgreSQL uses, its english stop
 * words, and its split of words at anything but a letter or digit (apostrophes and hyphens too).
 * Used by context ranking (BM25), the candidate retrieval of context and semantic search, the
 * repeated-issue check of support health and the quality benchmark.
 * `test/e2e/text-analysis.e2e-spec.ts` compares it with the database's own analysis.
 *
 * Not covered, and why: the compiler's attribute keys and the stub embedding keep their own light
 * stemmer (`src/compiler/compiler-text.ts`), because their output is stored (memory keys that a
 * later compile must meet again, embedding vectors) and never matched against `content_tsv`.
 */
import { stem as porter2 } from 'porter2';
import { LruCache } from 'src/common/lru-cache';

/**
 * PostgreSQL's english stop words (`tsearch_data/english.stop`, the Snowball list): the words
 * `to_tsvector('english', …)` leaves out and `to_tsquery('english', …)` drops from a query.
 */
export const POSTGRES_ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her ' +
    'hers herself it its itself they them their theirs themselves what which who whom this that these ' +
    'those am is are was were be been being have has had having do does did doing a an the and but if ' +
    'or because as until while of at by for with about against between into through during before ' +
    'after above below to from up down in out on off over under again further then once here there ' +
    'when where why how all any both each few more most other some such no nor not only own same so ' +
    'than too very s t can will just don should now'
  ).split(' '),
);

/**
 * Words the database still indexes but retrieval neither fetches by nor scores, each group for a
 * reason: without them "When did Caroline go to the support group, yeah?" would fetch and favour
 * every chat turn that says "would", "really" or "yeah".
 * - auxiliaries and question words the Snowball list lacks (could, would, shall, must, whose…);
 * - chat filler, frequent in transcripts and topic-free (yeah, okay, thanks, really, lot, thing…);
 * - contraction fragments: PostgreSQL splits "didn't" into "didn" and "t" and its list has only
 *   "don" and "t", so the other negations and "'ve", "'re", "'ll" would count as words;
 * - contractions typed without an apostrophe (dont, im, ive, thats, whats, lets);
 * - the verbs of replying, like "say" above: in a store of conversations every turn is a reply,
 *   so they tell that someone spoke, not what about, while support tasks name their deliverable
 *   with them ("Draft a reply to …", "Respond to …"); as task words they matched agent
 *   boilerplate ("our team will reply by email") over the customer's matter (bench/README.md,
 *   "Context quality 2.0: support set"). Their nouns of topic ("response time") stay words.
 */
const RETRIEVAL_EXTRA_STOP_WORDS = (
  'could else etc ever get got let like much must ought really say said shall upon us whose would ' +
  'yeah yes hey hi hello oh ok okay wow thanks thank also well one lot lots thing things way ' +
  'didn doesn isn aren wasn weren hasn haven hadn couldn wouldn shouldn mustn ve re ll ' +
  'dont im ive thats whats lets reply replies replied replying respond responds responded responding'
).split(' ');

/** Stop words of retrieval and ranking: PostgreSQL's and the extras above. */
export const RETRIEVAL_STOP_WORDS: ReadonlySet<string> = new Set([...POSTGRES_ENGLISH_STOP_WORDS, ...RETRIEVAL_EXTRA_STOP_WORDS]);

/**
 * Words shorter than this neither fetch nor score: single letters ("x" of "x-ray") say nothing.
 * A number counts at any length: "visit 7", "step 3" or "room 4" is told apart by its digit.
 */
const MIN_WORD_LENGTH = 2;

/**
 * Lowercased words of `text` in order: runs of letters and digits (any script), as PostgreSQL's
 * parser splits plain text. "Caroline's" is "caroline" and "s" (a stop word), "x-ray" is "x" and
 * "ray". (The parser also keeps some compounds whole — hyphenated words besides their parts,
 * host names, e-mail addresses, URLs, decimals — which retrieval never asks for.)
 */
export function splitWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The stem PostgreSQL's `english` configuration gives a lowercase word: Snowball English
 * (Porter2) for words of letters, the word itself when it has a digit (the parser's `numword`
 * and `int` tokens go to the `simple` dictionary, unstemmed).
 */
export function stem(word: string): string {
  return /\p{N}/u.test(word) ? word : porter2(word);
}

/** Whether retrieval and ranking skip `word` (lowercase): too short or a stop word. */
export function isStopWord(word: string): boolean {
  return (word.length < MIN_WORD_LENGTH && !/^\p{N}+$/u.test(word)) || RETRIEVAL_STOP_WORDS.has(word);
}

/**
 * Recently analysed texts. Context ranking analyses every candidate of a subject on every
 * request, and candidates are mostly the same memories and episodes each time (stored texts
 * do not change), so a hit replaces splitting and stemming a text (a fifth of what a context
 * request allocated, bench/README.md "Receipt cost") by one map lookup. Bounded by entries and
 * by characters held (texts and their terms), so a subject of long texts cannot grow it past
 * a few megabytes; longer texts are analysed each time.
 */
const analyzed = new LruCache<string, readonly string[]>(20_000, { max: 4_000_000, of: (text, terms) => text.length + 8 * terms.length });
const MAX_CACHED_TEXT = 4_000;

/**
 * Lowercased, stemmed content words of `text`, in order and with repeats. The array may be
 * shared with other callers (it is cached): read it, never change it.
 */
export function analyze(text: string): readonly string[] {
  if (text.length > MAX_CACHED_TEXT) return analyzeText(text);
  return analyzed.get(text) ?? analyzed.set(text, analyzeText(text));
}

function analyzeText(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    if (!isStopWord(word)) terms.push(stem(word));
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
  splitWords(text).forEach((word, at) => {
    if (isStopWord(word) || !/^[a-z0-9]+$/.test(word)) return;
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
  return anyTermTsQuery(queryTerms(text, maxTerms));
}

/** `anyWordTsQuery` of terms a caller already has from `queryTerms`. */
export function anyTermTsQuery(terms: readonly QueryTerm[]): string | null {
  return terms.length === 0 ? null : terms.map((t) => `'${t.word}'`).join(' | ');
}

/**
 * Stems shorter than this have no variants: a prefix of four letters or fewer ("care" of
 * "career") is shared by unrelated words.
 */
export const VARIANT_MIN_STEM = 6;

/**
 * The prefix that a stem shares with the forms the stemmer left apart from it, or null: the stem
 * without its last letter. Snowball removes inflections but keeps derivations, and it ends a
 * stem with the letter its own rules leave, so "allergies" (allergi) and "allergic" (allerg),
 * "financial" (financi) and "finance" (financ), "religious" (religi) and "religion" differ in
 * or after their last letter. Whether a word with that prefix is a form of the same word, and
 * not another word by chance, is for the word vectors to say (context/expansion.ts): corpus-based
 * stemming in the sense of Xu and Croft (TOIS 1998), a crude prefix class refined by a measure of
 * use.
 */
export function variantPrefix(stem: string): string | null {
  return stem.length >= VARIANT_MIN_STEM && /^[a-z]+$/.test(stem) ? stem.slice(0, -1) : null;
}
