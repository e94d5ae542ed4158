import {
  comparable,
  cutChars,
  displayName,
  keyPhrase,
  normaliseText,
  normalisedValue,
  splitSentences,
  stemWord,
  truncateAtWord,
  words,
} from './compiler-text';

describe('normaliseText', () => {
  it('straightens typographic quotes and collapses spaces but keeps line breaks', () => {
    expect(normaliseText('I\u2019m  \u201Cfine\u201D\r\n1.\u00A0Go')).toBe('I\'m "fine"\n1. Go');
  });
});

describe('splitSentences', () => {
  it('splits on sentence punctuation and line breaks', () => {
    expect(splitSentences('Hi! My name is Juno. Can you help?\nThanks')).toEqual([
      'Hi!',
      'My name is Juno.',
      'Can you help?',
      'Thanks',
    ]);
  });

  it('does not split after abbreviations, decimals or a list number', () => {
    expect(splitSentences('I met Dr. Smith at 3.30 p.m. today. Fine')).toEqual(['I met Dr. Smith at 3.30 p.m. today.', 'Fine']);
    expect(splitSentences('1. Go to Settings')).toEqual(['1. Go to Settings']);
  });

  it('bounds the number and the length of sentences', () => {
    expect(splitSentences('a. '.repeat(1000), 5)).toHaveLength(5);
    expect(splitSentences('x'.repeat(10_000), 3, 100)[0]).toHaveLength(100);
  });
});

describe('stemWord', () => {
  it.each([
    ['plans', 'plan'],
    ['hiking', 'hik'],
    ['hike', 'hik'],
    ['dancing', 'danc'],
    ['dance', 'danc'],
    ['running', 'run'],
    ['studies', 'studi'],
    ['study', 'studi'],
    ['movies', 'movi'],
    ['movie', 'movi'],
    ['play', 'play'],
    ['sushi', 'sushi'],
    ['glass', 'glass'],
    ['iphone14', 'iphone14'],
  ])('%s -> %s', (word, stem) => {
    expect(stemWord(word)).toBe(stem);
  });
});

describe('keyPhrase', () => {
  it('ignores articles, possessives, case and plural forms', () => {
    expect(keyPhrase('the Sushi!')).toBe(keyPhrase('sushi'));
    expect(keyPhrase('my dogs')).toBe(keyPhrase('dog'));
  });

  it('keeps at most six words', () => {
    expect(keyPhrase('one two three four five six seven eight').split(' ')).toHaveLength(6);
  });
});

describe('normalisedValue', () => {
  it('compares values by stems without articles, unbounded', () => {
    expect(normalisedValue('likes: Dance')).toBe(normalisedValue('likes: all dances'));
    expect(normalisedValue('one two three four five six seven eight').split(' ')).toHaveLength(8);
  });
});

describe('words and comparable', () => {
  it('lowercases letters and digits of any script and drops apostrophes', () => {
    expect(words("I'm Zoë, 34 — 東京!")).toEqual(['im', 'zoë', '34', '東京']);
    expect(comparable('My name is Juno.')).toBe(comparable('my  name is juno'));
  });
});

describe('truncateAtWord', () => {
  it('keeps short text and cuts long text at a word boundary with an ellipsis', () => {
    expect(truncateAtWord('short text', 50)).toBe('short text');
    const cut = truncateAtWord('alpha beta gamma delta epsilon', 20);
    expect(cut).toBe('alpha beta gamma…');
    expect(cut.length).toBeLessThanOrEqual(20);
  });
});

describe('cutChars', () => {
  it('never leaves half of a surrogate pair', () => {
    expect(cutChars('ab😀cd', 3)).toBe('ab');
    expect(cutChars('ab😀cd', 4)).toBe('ab😀');
  });
});

describe('displayName', () => {
  it('title-cases names typed in lowercase and keeps mixed case', () => {
    expect(displayName('juno marsh')).toBe('Juno Marsh');
    expect(displayName('McKenzie')).toBe('McKenzie');
  });
});
