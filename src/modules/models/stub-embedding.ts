/**
 * The local embedding (EMBEDDING_PROVIDER=stub): deterministic, offline, and lexical. Word
 * stems, word bigrams and character n-grams are feature-hashed with a sign bit into
 * `dimensions` buckets and L2-normalised, so cosine similarity tracks shared words and word
 * pieces ("refund" ~ "refunds" ~ "refunded"). It knows no synonyms; it is the honest baseline
 * when no hosted model is configured, and it is stable across releases and machines.
 */
import { stemWord, words } from 'src/compiler/compiler-text';

/**
 * Bound once: inside sandboxed runtimes (Jest's VM context) every global `Math.x` lookup is
 * slow enough to turn a 0.05 ms embedding into several milliseconds.
 */
const { fround, imul, sqrt } = Math;

/** Longer texts are embedded by their opening: bounded work per call. */
const MAX_CHARS = 20_000;
const MAX_TOKENS = 2_000;

/** Function words carry little meaning; they still count, at a quarter weight. */
const STOPWORDS = new Set(
  (
    'a an the and or but if then so of to in on at by for with from as is am are was were be been being ' +
    'i me my mine we us our you your he him his she her it its they them their this that these those ' +
    'do does did have has had will would can could should may might must not no yes just very really ' +
    'what which who whom when where why how there here about into over under up down out than too also ' +
    'im ive id ill youre dont cant wont isnt its thats'
  ).split(' '),
);

const WORD_WEIGHT = 1;
const STOPWORD_WEIGHT = 0.25;
const BIGRAM_WEIGHT = 0.7;
/** Spread over a word's n-grams, so a long word does not outweigh a short one. */
const NGRAM_BUDGET = 0.9;
const NGRAM_SIZES = [3, 4, 5];

/** Seeds that keep feature kinds apart: the word "ing" and the n-gram "ing" hash differently. */
const SEED_WORD = 0x811c9dc5;
const SEED_BIGRAM = 0x01000193;
const SEED_NGRAM = 0x9e3779b9;

/**
 * The embedding's non-zero buckets: `index` ascending, `value` the float32-rounded components
 * of the unit-length vector (exactly the numbers `stubEmbedding` puts at those indexes). A text
 * has a few hundred features at most, so this is what similarity is computed on in process.
 */
export interface SparseVector {
  readonly index: Int32Array;
  readonly value: Float64Array;
  /** Sum of the squared values, kept so one query vector scored against many texts sums it once. */
  readonly squaredNorm: number;
}

/**
 * A unit-length vector of `dimensions` float32-rounded numbers, or all zeros when the text has
 * no letters or digits (callers treat a zero vector as "no embedding").
 * Throws RangeError when `dimensions` is not a positive integer: that is a configuration error.
 */
export function stubEmbedding(text: string, dimensions: number): number[] {
  const sparse = stubSparseEmbedding(text, dimensions);
  const out = new Array<number>(dimensions).fill(0);
  for (let k = 0; k < sparse.index.length; k++) out[sparse.index[k]] = sparse.value[k];
  return out;
}

/** `stubEmbedding` in sparse form (see SparseVector); no buckets for a text without tokens. */
export function stubSparseEmbedding(text: string, dimensions: number): SparseVector {
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  }
  const { sums, touched } = scratchFor(dimensions);
  const indexes: number[] = [];
  const add = (hash: number, weight: number): void => {
    const mixed = fmix32(hash);
    const bucket = mixed % dimensions;
    if (touched[bucket] === 0) {
      touched[bucket] = 1;
      indexes.push(bucket);
    }
    sums[bucket] += mixed & 0x80000000 ? -weight : weight;
  };
  const tokens = words(text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text).slice(0, MAX_TOKENS);
  let previous: string | null = null;
  for (const token of tokens) {
    const stop = STOPWORDS.has(token);
    const stem = stemWord(token);
    add(hashString(stem, SEED_WORD), stop ? STOPWORD_WEIGHT : WORD_WEIGHT);
    if (stop) {
      previous = null;
      continue;
    }
    if (previous !== null) add(hashString(stem, hashString(previous, SEED_BIGRAM)), BIGRAM_WEIGHT);
    previous = stem;
    addNgrams(add, token);
  }
  const index = Int32Array.from(indexes).sort();
  let norm = 0;
  for (let k = 0; k < index.length; k++) norm += sums[index[k]] * sums[index[k]];
  const scale = norm > 0 ? 1 / sqrt(norm) : 0;
  const value = new Float64Array(index.length);
  let squaredNorm = 0;
  for (let k = 0; k < index.length; k++) {
    value[k] = fround(sums[index[k]] * scale);
    squaredNorm += value[k] * value[k];
    // Leave the scratch arrays zeroed for the next call.
    sums[index[k]] = 0;
    touched[index[k]] = 0;
  }
  // Buckets that cancelled out to exactly 0 stay listed with value 0: harmless to every sum.
  return { index, value, squaredNorm };
}

/**
 * Per-bucket sums and "seen" marks, reused across calls (embedding is synchronous, so one set
 * per dimension count is enough): allocating and scanning 1,536 slots per text cost more than
 * hashing its words.
 */
const scratch = new Map<number, { sums: Float64Array; touched: Uint8Array }>();

function scratchFor(dimensions: number): { sums: Float64Array; touched: Uint8Array } {
  let s = scratch.get(dimensions);
  if (!s) {
    s = { sums: new Float64Array(dimensions), touched: new Uint8Array(dimensions) };
    scratch.set(dimensions, s);
  }
  return s;
}

/**
 * Cosine of two sparse vectors, computed like `cosineSimilarity` on their dense forms (the
 * norms from the float32-rounded components), so it equals the cosine of the stored vectors.
 * 0 when either has no non-zero component.
 */
export function sparseCosine(a: SparseVector, b: SparseVector): number {
  let dot = 0;
  for (let i = 0, j = 0; i < a.index.length && j < b.index.length; ) {
    if (a.index[i] === b.index[j]) dot += a.value[i++] * b.value[j++];
    else if (a.index[i] < b.index[j]) i++;
    else j++;
  }
  if (a.squaredNorm === 0 || b.squaredNorm === 0) return 0;
  const cosine = dot / sqrt(a.squaredNorm * b.squaredNorm);
  return cosine > 1 ? 1 : cosine < -1 ? -1 : cosine;
}

/** Character n-grams of "<token>", the angle brackets marking the word's start and end. */
function addNgrams(add: (hash: number, weight: number) => void, token: string): void {
  const marked = `<${token}>`;
  let count = 0;
  for (const n of NGRAM_SIZES) if (marked.length >= n) count += marked.length - n + 1;
  if (count === 0) return;
  const weight = NGRAM_BUDGET / sqrt(count);
  for (const n of NGRAM_SIZES) {
    for (let start = 0; start + n <= marked.length; start++) {
      add(hashRange(marked, start, start + n, SEED_NGRAM + n), weight);
    }
  }
}

function hashString(text: string, seed: number): number {
  return hashRange(text, 0, text.length, seed);
}

/** FNV-1a (32-bit) over UTF-16 code units of text[start, end). */
function hashRange(text: string, start: number, end: number, seed: number): number {
  let h = seed >>> 0;
  for (let i = start; i < end; i++) {
    h ^= text.charCodeAt(i);
    h = imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * MurmurHash3's finaliser: spreads FNV's weak low bits over all 32 bits. Signed feature
 * hashing takes the bucket from the low bits and the sign from the top bit.
 */
function fmix32(hash: number): number {
  let h = hash >>> 0;
  h ^= h >>> 16;
  h = imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Cosine of the angle between two vectors, in [-1, 1]. 0 when either is a zero vector or the
 * lengths differ (vectors of different dimensions are not comparable, e.g. after a change of
 * EMBEDDING_DIMENSIONS; callers fall back to text search).
 */
export function cosineSimilarity(a: number[], b: number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return 0;
  const cosine = dot / sqrt(na * nb);
  return cosine > 1 ? 1 : cosine < -1 ? -1 : cosine;
}
