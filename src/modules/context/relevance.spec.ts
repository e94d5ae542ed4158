import { analyze } from 'src/common/text/terms';
import { bm25Scores, bm25TermScores, computeCorpusStats, CorpusStats, semanticRelevance, textRelevance } from './relevance';

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

  it('counts a document given with copies as that many documents', () => {
    const once = computeCorpusStats([['may', '2023'], ['may', '2023'], ['may', '2023'], ['june', '2023'], []]);
    const copies = computeCorpusStats([['may', '2023'], ['june', '2023'], []], [3, 1, 1]);
    expect(copies.docCount).toBe(once.docCount);
    expect(copies.avgDocLength).toBe(once.avgDocLength);
    for (const term of ['may', 'june', '2023', 'july']) expect(copies.df(term)).toBe(once.df(term));
  });
});

describe('bm25TermScores', () => {
  const docs = [
    'Caroline went camping with her kids at the lake in June.',
    'Melanie painted a sunrise over the lake; camping again next month?',
    'The support group met on Tuesday.',
    '',
    'Camping, camping and more camping by the lake.',
  ].map(analyze);

  it('scores exactly as BM25 with document frequencies counted over every term of the documents', () => {
    const query = analyze('When did Caroline go camping at the lake?');
    const expansion = new Map([['kid', 0.2], ['tent', 0.3], ['lake', 0.1]]);
    // The same documents' full statistics, supplied: the counting pass must give the same figures.
    expect(bm25TermScores(query, docs, undefined, expansion)).toEqual(bm25TermScores(query, docs, computeCorpusStats(docs), expansion));
    const scores = bm25TermScores(query, docs, undefined, expansion);
    expect(scores[3]).toBe(0);
    expect(scores[2]).toBe(0);
    expect(scores[0]).toBeGreaterThan(scores[1]);
  });

  it('is bm25Scores over analysed texts', () => {
    const texts = ['Refund for order 4521 was approved.', 'The user called about the refund again.', 'Nothing here.'];
    expect(bm25TermScores(analyze('refund order 4521'), texts.map(analyze))).toEqual(bm25Scores('refund order 4521', texts));
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

  it('scores expansion terms at their weight times what a task word would score', () => {
    const plain = bm25Scores('refund', docs);
    const asTask = bm25Scores('email', docs);
    const expanded = bm25Scores('refund', docs, undefined, new Map([['email', 0.25]]));
    expect(expanded[0]).toBeCloseTo(0.25 * asTask[0], 10);
    expect(plain[0]).toBe(0);
    expect(expanded[1]).toBeCloseTo(plain[1], 10);
    // A task word keeps its own weight when the expansion names it too.
    expect(bm25Scores('refund', docs, undefined, new Map([['refund', 0.25]]))).toEqual(plain);
    expect(bm25Scores('the', docs, undefined, new Map([['email', 1]]))).toEqual([0, 0, 0, 0]);
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
