import { oneLine } from './one-line';

/** The definition the fast path must agree with. */
const reference = (text: string): string => text.replace(/\s+/g, ' ').trim();

describe('oneLine', () => {
  it('folds every kind of whitespace and trims, as the plain replace does', () => {
    const cases = [
      '',
      ' ',
      'a',
      'one line already',
      ' leading',
      'trailing ',
      'two  spaces',
      'tab\there',
      'new\nline',
      'crlf\r\nline',
      'no-break\u00a0space',
      'line\u2028separator',
      '\t\n ',
      'ends with newline\n',
      '\u3000ideographic space',
    ];
    for (const text of cases) expect(oneLine(text)).toBe(reference(text));
  });

  it('agrees with the plain replace on random texts of spaces, whitespace and letters', () => {
    const alphabet = ['a', 'b', ' ', ' ', '\t', '\n', '\u00a0', 'é'];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      expect(oneLine(text)).toBe(reference(text));
    }
  });

  it('returns a text with nothing to fold as the same string', () => {
    const text = 'Caroline: I went to the LGBTQ support group yesterday.';
    expect(oneLine(text)).toBe(text);
  });
});
