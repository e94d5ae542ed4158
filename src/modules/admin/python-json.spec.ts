import { LosslessNumber } from 'lossless-json';
import { compareCodePoints, formatFloat, parseLossless, PyFloat, pythonJson, sha256Hex } from './python-json';

// Expected strings below were produced by CPython 3.11 `json.dumps(..., sort_keys=True)`.
describe('pythonJson', () => {
  it('writes sorted keys, Python separators and escapes like json.dumps(sort_keys=True)', () => {
    const value = {
      b: [new PyFloat(1), 1e-7, 1e16, 1.5e300, 0.0001, 123456789012345.6, new PyFloat(-0), 10, true, null],
      a: 'café 😀 "q" \\ \n\r\t\b\f \u0001 \u007f',
    };
    expect(pythonJson(value)).toBe(
      '{"a": "caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\n\\r\\t\\b\\f \\u0001 \\u007f", ' +
        '"b": [1.0, 1e-07, 1e+16, 1.5e+300, 0.0001, 123456789012345.6, -0.0, 10, true, null]}',
    );
  });

  it('re-prints parsed number text the way Python re-prints json.loads output', () => {
    const cases: [string, string][] = [
      ['1.50', '1.5'],
      ['1E5', '100000.0'],
      ['1e5', '100000.0'],
      ['-0', '0'],
      ['1.0', '1.0'],
      ['10', '10'],
      ['12345678901234567890123', '12345678901234567890123'],
      ['100.0', '100.0'],
      ['1e22', '1e+22'],
      ['1e-5', '1e-05'],
      ['5e-324', '5e-324'],
      ['0.30000000000000004', '0.30000000000000004'],
      ['1e16', '1e+16'],
      ['9999999999999998.0', '9999999999999998.0'],
    ];
    for (const [text, python] of cases) {
      expect(pythonJson(new LosslessNumber(text))).toBe(python);
    }
  });

  it('keeps the original float text through parseLossless where JSON.parse would lose it', () => {
    const text = '{"confidence": 1.0, "embedding": [0.5, 1e-07, 2.0], "n": 3}';
    expect(pythonJson(parseLossless(text))).toBe(text);
    expect(pythonJson(JSON.parse(text))).not.toBe(text);
  });

  it('writes plain numbers as int when a safe integer and PyFloat always as float', () => {
    expect(pythonJson([1, -0, 1.5, new PyFloat(1), new PyFloat(2.5), 2n ** 70n])).toBe(
      '[1, 0, 1.5, 1.0, 2.5, 1180591620717411303424]',
    );
    expect(pythonJson([2 ** 60, 1.5e300])).toBe('[1.152921504606847e+18, 1.5e+300]');
  });

  it('sorts keys by code point, not UTF-16 unit (astral after U+FFFF)', () => {
    const value = parseLossless('{"\\ud83d\\ude00": 1, "\\uffff": 2, "\\ue000": 3, "z": 4}');
    expect(pythonJson(value)).toBe('{"z": 4, "\\ue000": 3, "\\uffff": 2, "\\ud83d\\ude00": 1}');
    expect(compareCodePoints('\u{1F600}', '\uffff')).toBeGreaterThan(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('x', 'x')).toBe(0);
  });

  it('escapes lone surrogates as Python does', () => {
    expect(pythonJson(parseLossless('"\\ud800x\\udfff"'))).toBe('"\\ud800x\\udfff"');
  });

  it('keeps a __proto__ key as data and lets a repeated key keep its last value', () => {
    expect(pythonJson(parseLossless('{"__proto__": {"x": 1}, "a": 1, "a": 2}'))).toBe(
      '{"__proto__": {"x": 1}, "a": 2}',
    );
  });

  it('refuses values that have no JSON form', () => {
    expect(() => pythonJson({ a: undefined })).toThrow(TypeError);
    expect(() => pythonJson(new Date(0))).toThrow('Date');
    expect(() => pythonJson(Number.NaN)).toThrow(TypeError);
    expect(() => pythonJson(new LosslessNumber('1e400'))).toThrow(TypeError);
  });
});

describe('formatFloat', () => {
  it('switches to exponent form below 1e-4 and from 1e16, like repr(float)', () => {
    expect(formatFloat(0.0001)).toBe('0.0001');
    expect(formatFloat(0.00001234)).toBe('1.234e-05');
    expect(formatFloat(1e15)).toBe('1000000000000000.0');
    expect(formatFloat(1e16)).toBe('1e+16');
    expect(formatFloat(-2.5e-300)).toBe('-2.5e-300');
    expect(formatFloat(0)).toBe('0.0');
  });
});

describe('sha256Hex', () => {
  it('hashes the UTF-8 text to lowercase hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
