import {
  channelAt,
  clauseHead,
  emailAt,
  emailIn,
  languagesAt,
  orgName,
  phoneAt,
  phrase,
  placeName,
  planName,
  properName,
  readPhrase,
  timezoneAt,
  withoutDeterminers,
} from './fact-values';

describe('clauseHead', () => {
  it('ends at punctuation and spaced dashes but not inside names like Node.js', () => {
    expect(clauseHead('Node.js and Go, mostly')).toBe('Node.js and Go');
    expect(clauseHead('pottery - the creativity')).toBe('pottery');
  });
});

describe('phrase', () => {
  it('stops at clause words, subject pronouns and the word limit', () => {
    expect(phrase('sushi because it is fresh', { maxWords: 6 })).toBe('sushi');
    expect(phrase('spending time with the friends I have', { maxWords: 8 })).toBe('spending time with the friends');
    expect(readPhrase('one two three four', { maxWords: 2 })).toEqual({ value: 'one two', truncated: true });
  });

  it('keeps lists only when asked and only while the next word is not a new clause', () => {
    expect(phrase('hiking and camping', { maxWords: 6 })).toBe('hiking');
    expect(phrase('hiking and camping', { maxWords: 6, allowLists: true })).toBe('hiking and camping');
    expect(phrase("dancing and it'd be great", { maxWords: 6, allowLists: true })).toBe('dancing');
  });

  it('drops closing fillers', () => {
    expect(phrase('sushi so much lol', { maxWords: 6 })).toBe('sushi');
  });
});

describe('properName', () => {
  it('reads capitalised names with particles and stops at other words', () => {
    expect(properName('Juno Marsh and I am here', 4)).toBe('Juno Marsh');
    expect(properName('Bank of America today', 5)).toBe('Bank of America');
    expect(properName("Anna's wedding", 3)).toBe('Anna');
  });

  it('rejects common capitalised words and lowercase text unless allowed', () => {
    expect(properName('Sorry about that', 3)).toBeNull();
    expect(properName('juno marsh', 3)).toBeNull();
    expect(properName('juno marsh and', 3, true)).toBe('juno marsh');
  });
});

describe('contact values', () => {
  it('reads emails and phone numbers', () => {
    expect(emailAt(' <Juno.M@Example.COM>')).toBe('juno.m@example.com');
    expect(emailAt('not an email')).toBeNull();
    expect(emailIn('sure, it is juno@x.io thanks')).toBe('juno@x.io');
    expect(phoneAt('+1 (555) 123-4567 anytime')).toBe('+1 (555) 123-4567');
    expect(phoneAt('2 years old')).toBeNull();
  });

  it('maps channel words to one stored form', () => {
    expect(channelAt('text messages please')).toBe('text message');
    expect(channelAt('my cell')).toBe('phone');
    expect(channelAt('Monday')).toBeNull();
  });
});

describe('planName', () => {
  it('reads the words before a plan noun or a tier word alone', () => {
    expect(planName('the Pro plan')).toBe('Pro');
    expect(planName('an enterprise subscription')).toBe('Enterprise');
    expect(planName('Enterprise last week')).toBe('Enterprise');
    expect(planName('a premium account')).toBe('Premium');
  });

  it('rejects non-plans', () => {
    expect(planName('a Google account')).toBeNull();
    expect(planName('the team')).toBeNull();
    expect(planName('my way home')).toBeNull();
    expect(planName('free time', true)).toBeNull();
  });
});

describe('places, organisations, time zones and languages', () => {
  it('reads places with a state tail, and lowercase only when allowed', () => {
    expect(placeName('San Francisco, CA and more', false)).toBe('San Francisco, CA');
    expect(placeName('the Bay Area', false)).toBe('Bay Area');
    expect(placeName('a small town', false)).toBeNull();
    expect(placeName('a small town', true)).toBe('a small town');
  });

  it('reads organisations', () => {
    expect(orgName('Door Dash this month', false)).toBe('Door Dash');
    expect(orgName('a bakery in town', true)).toBe('a bakery');
    expect(orgName('myself', true)).toBeNull();
  });

  it('reads time zones, abbreviations only in capitals', () => {
    expect(timezoneAt('Europe/Berlin')).toBe('Europe/Berlin');
    expect(timezoneAt('UTC+2 mostly')).toBe('UTC+2');
    expect(timezoneAt('pacific time')).toBe('pacific time');
    expect(timezoneAt('PST')).toBe('PST');
    expect(timezoneAt('pst')).toBeNull();
  });

  it('reads language lists', () => {
    expect(languagesAt('French and German fluently')).toEqual(['French', 'German']);
    expect(languagesAt('public')).toEqual([]);
  });
});

describe('withoutDeterminers', () => {
  it('drops leading articles and demonstratives', () => {
    expect(withoutDeterminers('this amazing tart')).toBe('amazing tart');
  });
});
