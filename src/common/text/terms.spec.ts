import { analyze, anyWordTsQuery, queryTerms, stem } from './terms';

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

describe('anyWordTsQuery', () => {
  it('ORs the content words and is null without any', () => {
    expect(anyWordTsQuery('Why are the webhooks not arriving?', 16)).toBe("'webhooks' | 'arriving'");
    expect(anyWordTsQuery('why is it', 16)).toBeNull();
    expect(anyWordTsQuery("'; DROP TABLE memories; --", 16)).toBe("'drop' | 'table' | 'memories'");
  });
});
