import {
  analyze,
  bm25Scores,
  computeCorpusStats,
  CorpusStats,
  queryTerms,
  semanticRelevance,
  stem,
  textRelevance,
} from './relevance';

describe('stem', () => {
  it('joins inflections of one word', () => {
    expect(new Set(['paint', 'paints', 'painted', 'painting'].map(stem))).toEqual(new Set(['paint']));
    expect(new Set(['study', 'studies', 'studied', 'studying'].map(stem))).toEqual(new Set(['study']));
    expect(new Set(['run', 'runs', 'running'].map(stem))).toEqual(new Set(['run']));
    expect(new Set(['make', 'makes', 'making'].map(stem))).toEqual(new Set(['mak']));
    expect(stem('classes')).toBe(stem('class'));
    expect(stem('boxes')).toBe(stem('box'));
  });

  it('leaves short words, numbers and non-suffixes alone', () => {
    expect(stem('bus')).toBe('bus');
    expect(stem('2023')).toBe('2023');
    expect(stem('falling')).toBe('fall');
    expect(stem('adding')).toBe('add');
    expect(stem('need')).toBe('need');
    expect(stem('agreed')).toBe('agreed');
  });
});

describe('analyze', () => {
  it('lowercases, drops stopwords and question words, and keeps possessors', () => {
    expect(analyze("When did Caroline's sister go to the LGBTQ support group?")).toEqual([
      'carolin',
      'sister',
      'go',
      'lgbtq',
      'support',
      'group',
    ]);
  });

  it('splits on punctuation, keeps numbers and non-Latin letters', () => {
    expect(analyze('Order #4521 — refund:Zürich, 東京')).toEqual(['order', '4521', 'refund', 'zürich', '東京']);
    expect(analyze("I don't know")).toEqual(['know']);
    expect(analyze('')).toEqual([]);
  });
});

describe('computeCorpusStats', () => {
  it('counts documents, average length and document frequency', () => {
    const stats = computeCorpusStats([['a', 'b', 'b'], ['b'], []]);
    expect(stats.docCount).toBe(3);
    expect(stats.avgDocLength).toBeCloseTo(4 / 3);
    expect(stats.df('b')).toBe(2);
    expect(stats.df('a')).toBe(1);
    expect(stats.df('zzz')).toBe(0);
    expect(computeCorpusStats([]).avgDocLength).toBe(0);
  });
});

describe('bm25Scores', () => {
  const docs = [
    'The user prefers email over phone calls.',
    'Refund for order 4521 was approved.',
    'The user called about the refund again.',
    'Nothing to see here.',
  ];

  it('scores documents that share rarer task words higher, and others zero', () => {
    const scores = bm25Scores('refund of order 4521', docs);
    expect(scores[1]).toBeGreaterThan(scores[2]);
    expect(scores[2]).toBeGreaterThan(0);
    expect(scores[0]).toBe(0);
    expect(scores[3]).toBe(0);
  });

  it('gives all zeros for a task of stopwords or no documents', () => {
    expect(bm25Scores('what is it about?', docs)).toEqual([0, 0, 0, 0]);
    expect(bm25Scores('refund', [])).toEqual([]);
  });

  it('prefers the shorter of two documents with the same match', () => {
    const [short, long] = bm25Scores('pottery', [
      'Pottery class today.',
      'Pottery class today, then shopping, cooking, cleaning, reading and a long walk by the lake.',
    ]);
    expect(short).toBeGreaterThan(long);
  });

  it('counts a repeated task word once', () => {
    expect(bm25Scores('refund refund refund', docs)).toEqual(bm25Scores('refund', docs));
  });

  it('uses supplied corpus statistics instead of the documents own', () => {
    const local = bm25Scores('refund email', docs);
    // Subject-wide, "refund" is in almost every one of 10,000 documents and "email" in few.
    const subjectWide: CorpusStats = {
      docCount: 10_000,
      avgDocLength: 6,
      df: (term) => (term === 'refund' ? 9_000 : term === 'email' ? 10 : 0),
    };
    const supplied = bm25Scores('refund email', docs, subjectWide);
    expect(local[1]).toBeGreaterThan(local[0] / 2);
    expect(supplied[0]).toBeGreaterThan(supplied[1] * 5);
  });

  it('tolerates statistics that lag behind the documents', () => {
    const stale: CorpusStats = { docCount: 0, avgDocLength: 0, df: () => 5 };
    const scores = bm25Scores('refund', docs, stale);
    expect(scores.every(Number.isFinite)).toBe(true);
    expect(scores[1]).toBeGreaterThan(0);
  });
});

describe('textRelevance', () => {
  it('maps the best score to 5 and others proportionally', () => {
    expect(textRelevance(4, 4)).toBe(5);
    expect(textRelevance(2, 4)).toBe(2.5);
    expect(textRelevance(0, 4)).toBe(0);
    expect(textRelevance(0, 0)).toBe(0);
  });
});

describe('semanticRelevance', () => {
  it('stays within 0–8, mostly from the cosine, partly from the words', () => {
    expect(semanticRelevance(1, 5)).toBe(8);
    expect(semanticRelevance(1, 0)).toBe(6);
    expect(semanticRelevance(0, 5)).toBe(2);
    expect(semanticRelevance(-0.9, 0)).toBe(0);
    expect(semanticRelevance(Number.NaN, 0)).toBe(0);
    expect(semanticRelevance(3, 9)).toBe(8);
  });
});

describe('queryTerms', () => {
  it('keeps distinct plain-ASCII content words with their stems, in query order', () => {
    expect(queryTerms("When did Caroline's painting class start? Painting!", 10)).toEqual([
      { term: 'carolin', word: 'caroline' },
      { term: 'paint', word: 'painting' },
      { term: 'class', word: 'class' },
      { term: 'start', word: 'start' },
    ]);
  });

  it('skips words a tsquery could not take verbatim and keeps the longest when over the bound', () => {
    expect(queryTerms("café o'clock x-ray", 10).map((t) => t.word)).toEqual(['oclock', 'ray']);
    expect(queryTerms('tea photography kayak piano', 2).map((t) => t.word)).toEqual(['photography', 'kayak']);
  });
});
