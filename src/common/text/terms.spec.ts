import { analyze, anyTermTsQuery, anyWordTsQuery, isStopWord, queryTerms, splitWords, stem, VARIANT_MIN_STEM, variantPrefix } from './terms';

// The stems here are PostgreSQL's (`to_tsvector('english', …)`); test/e2e/text-analysis.e2e-spec.ts
// checks a longer list against the database itself.
describe('stem', () => {
  it('joins inflections of one word as Snowball English does', () => {
    expect(new Set(['paint', 'paints', 'painted', 'painting'].map(stem))).toEqual(new Set(['paint']));
    expect(new Set(['study', 'studies', 'studied', 'studying'].map(stem))).toEqual(new Set(['studi']));
    expect(new Set(['run', 'runs', 'running'].map(stem))).toEqual(new Set(['run']));
    expect(new Set(['make', 'makes', 'making'].map(stem))).toEqual(new Set(['make']));
    expect(stem('classes')).toBe(stem('class'));
    expect(stem('boxes')).toBe(stem('box'));
    expect(stem('generously')).toBe('generous');
  });

  it('leaves words with digits unstemmed, as the database does', () => {
    expect(stem('2023')).toBe('2023');
    expect(stem('abc123s')).toBe('abc123s');
    expect(stem('bus')).toBe('bus');
    expect(stem('zürich')).toBe('zürich');
  });
});

describe('splitWords and isStopWord', () => {
  it('splits at apostrophes and hyphens like the database parser', () => {
    expect(splitWords("Caroline's X-ray, don't")).toEqual(['caroline', 's', 'x', 'ray', 'don', 't']);
  });

  it('skips PostgreSQL english stop words, the stated extras and single letters', () => {
    for (const w of ['the', 's', 't', 'don', 'would', 'yeah', 'didn', 'x']) expect(isStopWord(w)).toBe(true);
    for (const w of ['won', 'pottery', '42']) expect(isStopWord(w)).toBe(false);
  });

  it('skips the verbs of replying, which say that someone spoke but not about what', () => {
    expect(analyze("Draft a friendly reply to this customer's latest message")).toEqual(['draft', 'friend', 'custom', 'latest', 'messag']);
    expect(analyze('Our accounts team will reply by email and responded yesterday')).toEqual(['account', 'team', 'email', 'yesterday']);
  });

  it('keeps a number of one digit: "visit 7" is told apart from "visit 8" by it', () => {
    expect(isStopWord('7')).toBe(false);
    expect(analyze('Which voucher came with visit 7?')).toEqual(['voucher', 'came', 'visit', '7']);
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

  it('answers a text seen before from its cache (the same terms, not analysed again); a very long text each time', () => {
    const text = `Melanie went camping at the lake on ${'the '.repeat(3)}weekend`;
    const first = analyze(text);
    expect(analyze(`${text}`.slice(0))).toBe(first);
    expect(first).toEqual(['melani', 'went', 'camp', 'lake', 'weekend']);
    const long = 'camping '.repeat(600);
    expect(analyze(long)).not.toBe(analyze(long));
    expect(analyze(long)).toEqual(analyze(long));
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
    expect(queryTerms("café o'clock x-ray", 10).map((t) => t.word)).toEqual(['clock', 'ray']);
    expect(queryTerms('tea photography kayak piano', 2).map((t) => t.word)).toEqual(['photography', 'kayak']);
  });
});

describe('anyWordTsQuery', () => {
  it('ORs the content words and is null without any', () => {
    expect(anyWordTsQuery('Why are the webhooks not arriving?', 16)).toBe("'webhooks' | 'arriving'");
    expect(anyWordTsQuery('why is it', 16)).toBeNull();
    expect(anyWordTsQuery("'; DROP TABLE memories; --", 16)).toBe("'drop' | 'table' | 'memories'");
  });

  it('is the same query from terms already taken from the text, within their bound', () => {
    const task = 'Which photography classes did Melanie take before the pottery workshop?';
    expect(anyTermTsQuery(queryTerms(task, 3))).toBe(anyWordTsQuery(task, 3));
    expect(anyTermTsQuery(queryTerms(task, 3))).toBe("'photography' | 'classes' | 'workshop'");
    expect(anyTermTsQuery([])).toBeNull();
  });
});

describe('variantPrefix', () => {
  it('gives a stem of six letters or more the prefix its split-off forms share: the stem without its last letter', () => {
    expect(VARIANT_MIN_STEM).toBe(6);
    // allergies / allergic, financial / finance, religious / religion: one word, two stems.
    expect([stem('allergies'), stem('allergic')]).toEqual(['allergi', 'allerg']);
    expect(variantPrefix(stem('allergies'))).toBe('allerg');
    expect(stem('finance').startsWith(variantPrefix(stem('financial'))!)).toBe(true);
    expect(stem('religion').startsWith(variantPrefix(stem('religious'))!)).toBe(true);
    // Short stems have none ("care" would be shared by "career" and "careful"); nor has a number.
    expect(variantPrefix(stem('careers'))).toBe('caree');
    expect(variantPrefix('care')).toBeNull();
    expect(variantPrefix(stem('hiking'))).toBeNull();
    expect(variantPrefix('2023abc')).toBeNull();
  });
});
