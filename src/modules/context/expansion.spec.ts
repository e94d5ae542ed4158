import { encodeWordVectors, WordVectors } from 'src/common/text/word-vectors';
import { EXPANSION_MIN_COSINE, EXPANSION_NEIGHBOURS, EXPANSION_WEIGHT, neighbourExpansion, variantTsQuery } from './expansion';

/** Unit vectors at an angle (degrees) in a plane, so each pair's cosine is known. */
const at = (degrees: number): number[] => [Math.round(100 * Math.cos((degrees * Math.PI) / 180)), Math.round(100 * Math.sin((degrees * Math.PI) / 180)), 0];
const vectors = WordVectors.fromBuffer(
  encodeWordVectors(
    [
      ['martial', at(0)],
      ['kickbox', at(20)],
      ['karat', at(25)],
      ['judo', at(30)],
      ['taekwondo', at(35)],
      ['invoic', at(90)],
      ['bill', at(85)],
      ['wrestl', at(55)],
      ['allergi', at(120)],
      ['allerg', at(130)],
      ['allergen', at(185)],
      ['asthma', at(125)],
    ],
    3,
  ),
);
const cos = (a: number, b: number) => Math.cos(((b - a) * Math.PI) / 180);

describe('neighbourExpansion', () => {
  it('adds the nearest candidate words of each task word, weighted by their cosine', () => {
    const expansion = neighbourExpansion(['martial'], [['kickbox', 'class'], ['judo', 'karat'], ['taekwondo'], ['invoic', 'martial']], vectors);
    expect(EXPANSION_NEIGHBOURS).toBe(3);
    expect([...expansion.keys()].sort()).toEqual(['judo', 'karat', 'kickbox']);
    expect(expansion.get('kickbox')).toBeCloseTo(EXPANSION_WEIGHT * cos(0, 20), 2);
    expect(expansion.get('judo')).toBeCloseTo(EXPANSION_WEIGHT * cos(0, 30), 2);
  });

  it('takes neighbours only among the candidates, and only close ones', () => {
    // "wrestl" is at 55°, cosine 0.57; "invoic" at 90°, cosine 0.
    expect(cos(0, 55)).toBeGreaterThan(EXPANSION_MIN_COSINE);
    expect(cos(0, 90)).toBeLessThan(EXPANSION_MIN_COSINE);
    expect([...neighbourExpansion(['martial'], [['wrestl', 'invoic', 'unknown', 'martial']], vectors).keys()]).toEqual(['wrestl']);
    expect(neighbourExpansion(['martial'], [['invoic', 'bill', 'martial']], vectors).size).toBe(0);
  });

  it('never expands with a task word, and keeps the larger weight a word gets from two task words', () => {
    const expansion = neighbourExpansion(['martial', 'judo'], [['judo', 'kickbox', 'taekwondo']], vectors);
    expect(expansion.has('judo')).toBe(false);
    // taekwondo: 35° from martial, 5° from judo.
    expect(expansion.get('taekwondo')).toBeCloseTo(EXPANSION_WEIGHT * cos(30, 35), 2);
  });

  it('expands nothing when no candidate has any of the task’s words', () => {
    expect(neighbourExpansion(['martial', 'art'], [['kickbox', 'class'], ['judo']], vectors).size).toBe(0);
    expect(neighbourExpansion(['martial', 'art'], [['kickbox', 'class'], ['judo', 'art']], vectors).size).toBeGreaterThan(0);
  });

  it('expands nothing when no task word has a vector', () => {
    expect(neighbourExpansion(['zzz', 'qqq'], [['kickbox']], vectors).size).toBe(0);
    expect(neighbourExpansion([], [['kickbox']], vectors).size).toBe(0);
  });

  it('weighs a variant of a task word (the stem without its last letter begins it) at its full cosine, when used alike', () => {
    // allerg: 10° from allergi; allergen: 65°, under the least cosine, the same prefix by chance.
    expect(cos(120, 185)).toBeLessThan(EXPANSION_MIN_COSINE);
    const expansion = neighbourExpansion(['allergi'], [['allergi', 'fur'], ['allerg', 'reptil'], ['allergen']], vectors);
    expect(expansion.get('allerg')).toBeCloseTo(cos(120, 130), 2);
    expect(expansion.has('allergen')).toBe(false);
    // A near word that is not a variant is a neighbour, at the neighbours' weight.
    const withNeighbour = neighbourExpansion(['allergi'], [['allergi'], ['asthma', 'allerg']], vectors);
    expect(withNeighbour.get('asthma')).toBeCloseTo(EXPANSION_WEIGHT * cos(120, 125), 2);
    expect(withNeighbour.get('allerg')).toBeCloseTo(cos(120, 130), 2);
  });

  it('fetches the variants ranking would count: by exact stem, never the task word, none for a word without them', () => {
    expect(variantTsQuery(['allergi'], vectors)).toBe("'allerg'");
    // Task words are never fetched as variants of each other; allergen is 65° from allergi but 55° from allerg.
    expect(variantTsQuery(['allergi', 'allerg'], vectors)).toBe("'allergen'");
    expect(variantTsQuery(['martial', 'judo'], vectors)).toBeNull();
    expect(variantTsQuery(['unknown'], vectors)).toBeNull();
  });

  it('gives the same expansion for the same candidates', () => {
    const docs = [['taekwondo', 'karat'], ['kickbox', 'judo', 'martial']];
    expect([...neighbourExpansion(['martial'], docs, vectors)]).toEqual([...neighbourExpansion(['martial'], docs, vectors)]);
  });

  it('looks up a candidate’s words per vector set: the same analysed text under other vectors finds their neighbours', () => {
    const docs = [['martial', 'kickbox', 'bill']];
    expect([...neighbourExpansion(['martial'], docs, vectors).keys()]).toEqual(['kickbox']);
    // Another vector set where "bill", not "kickbox", sits next to "martial" (and "kickbox" has no vector).
    const other = WordVectors.fromBuffer(encodeWordVectors([['bill', at(10)], ['martial', at(0)]], 3));
    expect([...neighbourExpansion(['martial'], docs, other).keys()]).toEqual(['bill']);
    expect([...neighbourExpansion(['martial'], docs, vectors).keys()]).toEqual(['kickbox']);
  });
});
