import { cosineSimilarity, sparseCosine, stubEmbedding, stubSparseEmbedding } from './stub-embedding';

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

  it('embeds any script, and a huge text by its opening 20,000 characters', () => {
    expect(norm(stubEmbedding('我喜欢寿司 😀 Élodie', DIMS))).toBeCloseTo(1, 5);
    const huge = 'lorem ipsum dolor sit amet '.repeat(100_000);
    expect(stubEmbedding(huge, 64)).toEqual(stubEmbedding(huge.slice(0, 20_000), 64));
  });

  it('keeps the vectors stored by earlier releases (stored embeddings stay comparable)', () => {
    // Golden vector: changing the features, weights, hashing or rounding breaks search over
    // every embedding already stored, so it must be a deliberate, migrated change.
    expect(stubEmbedding('I love sushi, and refunds!', 32)).toEqual([
      0.10768096148967743, -0.0879211351275444, -0.124339260160923, -0.0364181250333786, -0.0879211351275444, -0.10457943379878998,
      -0.10768096148967743, 0, 0.10361605137586594, -0.21536192297935486, 0.32654306292533875, 0, 0.14409908652305603, -0.1758422702550888,
      -0.19966700673103333, -0.124339260160923, -0.45088234543800354, 0, -0.3001815378665924, -0.29012495279312134, 0, 0.019759824499487877,
      -0.124339260160923, 0.23202021420001984, 0, 0.10768096148967743, -0.0879211351275444, 0.43422403931617737, -0.0879211351275444, 0, 0, 0,
    ]);
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

describe('stubSparseEmbedding and sparseCosine', () => {
  const texts = ['I love sushi', 'I really like sushi and ramen', 'Refund the duplicate invoice charge', '', '!!', '我喜欢寿司', 'hiking hiking hiking'];

  it('holds exactly the non-zero components of the dense vector', () => {
    for (const text of texts) {
      const dense = stubEmbedding(text, DIMS);
      const sparse = stubSparseEmbedding(text, DIMS);
      const rebuilt = new Array<number>(DIMS).fill(0);
      sparse.index.forEach((i, k) => (rebuilt[i] = sparse.value[k]));
      expect(rebuilt).toEqual(dense);
      expect([...sparse.index]).toEqual([...sparse.index].sort((a, b) => a - b));
    }
  });

  it('gives the cosine of the dense vectors', () => {
    for (const a of texts) {
      for (const b of texts) {
        const dense = cosineSimilarity(stubEmbedding(a, DIMS), stubEmbedding(b, DIMS));
        expect(sparseCosine(stubSparseEmbedding(a, DIMS), stubSparseEmbedding(b, DIMS))).toBeCloseTo(dense, 12);
      }
    }
  });

  it('is 0 against a text with nothing to embed', () => {
    expect(sparseCosine(stubSparseEmbedding('sushi', DIMS), stubSparseEmbedding('?', DIMS))).toBe(0);
  });
});
