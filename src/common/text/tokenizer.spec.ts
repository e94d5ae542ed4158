import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { countTokens, dropDecodingTable, getEncoder, truncateToTokens } from './tokenizer';

describe('tokenizer (cl100k)', () => {
  it('counts tokens of plain English and of an empty string', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
  });

  it('truncates to at most the given number of tokens', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const cut = truncateToTokens(text, 15);
    expect(countTokens(cut)).toBeLessThanOrEqual(15);
    expect(text.startsWith(cut)).toBe(true);
    expect(truncateToTokens('short', 10)).toBe('short');
    expect(truncateToTokens('anything', 0)).toBe('');
  });

  it('never leaves a broken character when cutting inside emoji', () => {
    const cut = truncateToTokens('🔴🟡🟢'.repeat(10), 3);
    expect(cut).not.toContain('\uFFFD');
    expect(countTokens(cut)).toBeLessThanOrEqual(3);
  });
});

describe('tokenizer on pathological input', () => {
  it('counts long runs of spaces or letters in slices, never below the exact count', () => {
    // Unsliced, these take the encoder tens of seconds (the test timeout catches a regression).
    expect(countTokens(' '.repeat(50000))).toBeGreaterThanOrEqual(50000 / 128);
    expect(countTokens('x'.repeat(50000))).toBeGreaterThan(50000 / 128);
    // Slicing only loses merges across the cut: a 300-letter run counts at least its exact tokens.
    const run = 'ab'.repeat(150);
    const exact = new Tiktoken(cl100k).encode(run).length;
    expect(countTokens(run)).toBeGreaterThanOrEqual(exact);
  });

  it('truncates a long unbroken run within the budget', () => {
    const cut = truncateToTokens('y'.repeat(20000), 50);
    expect(countTokens(cut)).toBeLessThanOrEqual(50);
    expect(cut.length).toBeGreaterThan(50);
  });
});

describe('tokenizer segments', () => {
  const encoder = new Tiktoken(cl100k);
  const PIECES = ['## Task\n', 'Why is the export failing?\n', '\n', '## About this user\n', '- user: My name is Juno Marsh\n', '- [8 May, 2023] Caroline: I went to the LGBTQ support group.\n',
    '  indented line\n', '\n\n', 'no newline', ' ', '\t', '\r\n', '...\n', "don't\n", '数据 🔴 naïve\n', '123456\n', '- x\n\n### Current session (s-1)\n', '  \n', '!!\n', '\u00a0\n'];

  it('counts exactly what the encoder counts for the whole text, however it is split into lines', () => {
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let round = 0; round < 400; round++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () => PIECES[Math.floor(random() * PIECES.length)]).join('');
      expect(countTokens(text)).toBe(encoder.encode(text).length);
      // A second count comes from the segment cache and must agree.
      expect(countTokens(text)).toBe(encoder.encode(text).length);
    }
  });
});

describe('tokenizer memory', () => {
  const decodingTable = (e: Tiktoken) => (e as unknown as { textMap: Map<number, Uint8Array> }).textMap;

  it('js-tiktoken keeps its decoding table where dropDecodingTable empties it', () => {
    const fresh = new Tiktoken(cl100k);
    expect(decodingTable(fresh)).toBeInstanceOf(Map);
    expect(decodingTable(fresh).size).toBeGreaterThan(100_000);
    dropDecodingTable(fresh);
    expect(decodingTable(fresh).size).toBe(0);
  });

  it('the encoder counts with holds no decoding table and counts as a full one does', () => {
    const full = new Tiktoken(cl100k);
    const text = 'Refund question about a double charge on the invoice 数据 🔴 naïve\n- user: My name is Juno Marsh';
    expect(countTokens(text)).toBe(full.encode(text).length);
    expect(decodingTable(getEncoder()).size).toBe(0);
    expect(getEncoder().encode(text)).toEqual(full.encode(text));
  });
});
