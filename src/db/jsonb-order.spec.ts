import { asJsonb, compareJsonbKeys } from './jsonb-order';

describe('asJsonb', () => {
  it('orders keys as jsonb stores them: by UTF-8 byte length, then by bytes, at every depth', () => {
    const v = asJsonb({ messages: [{ role: 'user', content: 'hi' }], b: 1, aa: { zz: 1, y: [{ long: 1, s: 2 }] }, a: null, é: 1, z: 2 });
    expect(JSON.stringify(v)).toBe('{"a":null,"b":1,"z":2,"aa":{"y":[{"s":2,"long":1}],"zz":1},"é":1,"messages":[{"role":"user","content":"hi"}]}');
  });

  it('compares non-ASCII keys by their UTF-8 bytes, not UTF-16 code units', () => {
    // U+FF21 (3 bytes, EF BC A1) and U+1F600 (4 bytes): by code units the emoji (D83D) sorts first.
    expect(compareJsonbKeys('\uFF21', '\u{1F600}')).toBeLessThan(0);
    // Same byte length: U+00E9 (C3 A9) before U+0100 (C4 80).
    expect(compareJsonbKeys('\u00e9', '\u0100')).toBeLessThan(0);
  });

  it('keeps values, arrays and already ordered objects as they are', () => {
    expect(asJsonb([3, 'x', true, null, { a: 1 }])).toEqual([3, 'x', true, null, { a: 1 }]);
    expect(asJsonb('s')).toBe('s');
    expect(asJsonb(null)).toBeNull();
    // Already in jsonb's order at every depth: the value itself, not a copy.
    const ordered = { messages: [{ meta: { a: 1, bb: [{ x: 1 }] }, role: 'user', content: 'hi' }] };
    expect(asJsonb(ordered)).toBe(ordered);
    // One object out of order deep inside: a copy, ordered there, the original untouched.
    const deep = { messages: [{ role: 'user', content: 'hi' }, { content: 'x', role: 'agent' }] };
    expect(JSON.stringify(asJsonb(deep))).toBe('{"messages":[{"role":"user","content":"hi"},{"role":"agent","content":"x"}]}');
    expect(JSON.stringify(deep)).toBe('{"messages":[{"role":"user","content":"hi"},{"content":"x","role":"agent"}]}');
  });
});
