import { readFileSync } from 'node:fs';
import { encodeWordVectors, textAnalysisFingerprint, WORD_VECTORS_ANALYSIS_FILE, WordVectors, wordVectors } from './word-vectors';

const wordVectorFile = (entries: [string, number[]][]): Buffer => encodeWordVectors(entries, entries[0][1].length);

describe('WordVectors', () => {
  const vectors = WordVectors.fromBuffer(
    wordVectorFile([
      ['kid', [100, 0, 0, 10]],
      ['children', [90, 30, 0, 0]],
      ['café', [0, 0, 100, 0]],
      ['bike', [0, 100, 0, 0]],
      ['kids', [0, 0, 0, 100]],
    ]),
  );

  it('finds a stem by its text, ASCII or not, and answers -1 for one it lacks', () => {
    expect(vectors.size).toBe(5);
    expect(vectors.indexOf('kid')).toBe(0);
    expect(vectors.indexOf('children')).toBe(1);
    expect(vectors.indexOf('café')).toBe(2);
    expect(vectors.indexOf('kids')).toBe(4);
    expect(vectors.indexOf('ki')).toBe(-1);
    expect(vectors.indexOf('cafe')).toBe(-1);
    expect(vectors.indexOf('')).toBe(-1);
    expect(vectors.stem(3)).toBe('bike');
  });

  it('lists the stems that start with a prefix, in byte order', () => {
    const stems = (prefix: string) => [...vectors.withPrefix(prefix)].map((i) => vectors.stem(i));
    expect(stems('kid')).toEqual(['kid', 'kids']);
    expect(stems('c')).toEqual(['café', 'children']);
    expect(stems('children')).toEqual(['children']);
    expect(stems('childs')).toEqual([]);
    expect(stems('childrens')).toEqual([]);
    expect(stems('kids')).toEqual(['kids']);
    expect(stems('zz')).toEqual([]);
    expect(stems('')).toHaveLength(5);
  });

  it('gives the cosine of two stems', () => {
    expect(vectors.cosine(0, 0)).toBeCloseTo(1, 6);
    expect(vectors.cosine(0, 2)).toBeCloseTo(0, 6);
    expect(vectors.cosine(0, 1)).toBeCloseTo((100 * 90) / (Math.hypot(100, 10) * Math.hypot(90, 30)), 6);
  });

  it('lists the k nearest entries above a least cosine, nearest first, the earlier one first on a tie', () => {
    const among = Int32Array.from([3, 1, 2, 4]);
    expect(vectors.nearest(0, among, 2, 0).map((n) => n.at)).toEqual([1, 3]);
    expect(vectors.nearest(0, among, 5, 0.5).map((n) => n.at)).toEqual([1]);
    expect(vectors.nearest(0, among, 1, 0.99)).toEqual([]);
    expect(vectors.nearest(2, Int32Array.from([0, 3, 1]), 2, 0).map((n) => n.at)).toEqual([0, 1]);
  });

  it('refuses a file of another layout', () => {
    const good = wordVectorFile([['kid', [1, 2]]]);
    expect(() => WordVectors.fromBuffer(Buffer.from('nope'))).toThrow(/not a word-vectors file/);
    expect(() => WordVectors.fromBuffer(good.subarray(0, 17))).toThrow(/truncated/);
    expect(() => WordVectors.fromBuffer(Buffer.concat([good, Buffer.from('\nextra')]))).toThrow(/lists 2 stems for 1 vectors/);
  });

  it('reads the vendored vectors, whose neighbours are words used alike', () => {
    const vendored = wordVectors();
    expect(vendored).not.toBeNull();
    expect(vendored!.size).toBeGreaterThan(30_000);
    expect(vendored!.dimensions).toBe(100);
    const cos = (a: string, b: string) => vendored!.cosine(vendored!.indexOf(a), vendored!.indexOf(b));
    // Stems of terms.ts: "kids" → "kid", "kickboxing" → "kickbox".
    expect(cos('kid', 'children')).toBeGreaterThan(0.6);
    expect(cos('martial', 'kickbox')).toBeGreaterThan(0.5);
    expect(cos('martial', 'invoic')).toBeLessThan(0.3);
    expect(wordVectors()).toBe(vendored);
  });

  it('was made with the text analysis terms.ts has now (else regenerate it: scripts/build-word-vectors.js)', () => {
    // The file's keys are stems of words that were not stop words when it was built: a new stop
    // word or another stemmer leaves keys ranking never asks for and misses ones it does.
    const recorded = (JSON.parse(readFileSync(WORD_VECTORS_ANALYSIS_FILE, 'utf8')) as { text_analysis_sha256: string }).text_analysis_sha256;
    expect(recorded).toBe(textAnalysisFingerprint());
  });
});
