import { cosineSimilarity, stubEmbedding } from './stub-embedding';

const DIMS = 1536;
const sim = (a: string, b: string): number => cosineSimilarity(stubEmbedding(a, DIMS), stubEmbedding(b, DIMS));
const norm = (v: number[]): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

describe('stubEmbedding', () => {
  it('has the requested dimensions and unit length', () => {
    const v = stubEmbedding('My printer will not connect to Wi-Fi', DIMS);
    expect(v).toHaveLength(DIMS);
    expect(norm(v)).toBeCloseTo(1, 5);
  });

  it('is deterministic and float32-rounded', () => {
    const a = stubEmbedding('I love sushi', 64);
    expect(stubEmbedding('I love sushi', 64)).toEqual(a);
    for (const x of a) expect(Math.fround(x)).toBe(x);
  });

  it('scores related texts far above unrelated ones', () => {
    const related = [
      ['I love sushi', 'I really like sushi'],
      ['How do I reset my password?', 'Steps to reset your password'],
      ['refund my order', 'I want a refund for the order'],
      ['My printer will not connect to wifi', 'printer wifi connection problems'],
    ];
    const unrelated = [
      ['I love sushi', 'The invoice was charged twice'],
      ['How do I reset my password?', 'We went hiking in the mountains'],
      ['The weather is nice today', 'Quarterly revenue grew by ten percent'],
    ];
    const lowestRelated = Math.min(...related.map(([a, b]) => sim(a, b)));
    const highestUnrelated = Math.max(...unrelated.map(([a, b]) => sim(a, b)));
    expect(lowestRelated).toBeGreaterThan(0.4);
    expect(highestUnrelated).toBeLessThan(0.15);
  });

  it('matches word forms and ignores case and punctuation', () => {
    expect(sim('Refunds!', 'refund')).toBeGreaterThan(0.7);
    expect(sim('HIKING', 'hiking')).toBeCloseTo(1, 5);
  });

  it('returns a zero vector for text without letters or digits', () => {
    expect(stubEmbedding('', 8)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(stubEmbedding(' ?! ', 4)).toEqual([0, 0, 0, 0]);
  });

  it('embeds any script and stays bounded on huge input', () => {
    expect(norm(stubEmbedding('我喜欢寿司 😀 Élodie', DIMS))).toBeCloseTo(1, 5);
    const started = process.hrtime.bigint();
    stubEmbedding('lorem ipsum dolor sit amet '.repeat(100_000), DIMS);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });

  it('embeds a 400-character text in well under a millisecond', () => {
    const text = 'My invoices keep failing to download since the update; I tried clearing the cache. '.repeat(5).slice(0, 400);
    for (let i = 0; i < 50; i++) stubEmbedding(`${text}${i}`, DIMS);
    const runs = 500;
    const started = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) stubEmbedding(`${text}${i}`, DIMS);
    // Generous bound for loaded CI machines; locally it is about 0.05 ms.
    expect(Number(process.hrtime.bigint() - started) / 1e6 / runs).toBeLessThan(1);
  });

  it('rejects invalid dimensions', () => {
    expect(() => stubEmbedding('x', 0)).toThrow(RangeError);
    expect(() => stubEmbedding('x', 1.5)).toThrow(RangeError);
  });
});

describe('cosineSimilarity', () => {
  it('is 1 for the same direction, -1 for the opposite and 0 for orthogonal vectors', () => {
    expect(cosineSimilarity([1, 2], [2, 4])).toBeCloseTo(1, 10);
    expect(cosineSimilarity([1, 0], [-3, 0])).toBeCloseTo(-1, 10);
    expect(cosineSimilarity([1, 0], [0, 5])).toBe(0);
  });

  it('is 0 for zero vectors and vectors of different lengths', () => {
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(cosineSimilarity([1, 2, 3], [1, 2])).toBe(0);
    expect(cosineSimilarity([], [])).toBe(0);
  });
});
