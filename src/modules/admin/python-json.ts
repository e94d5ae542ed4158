import { createHash } from 'node:crypto';
import { isLosslessNumber, LosslessNumber } from 'lossless-json';

/**
 * JSON text byte-for-byte as Python's `json.dumps(value, sort_keys=True)` writes it.
 *
 * Export documents of the existing implementation carry a checksum over that text
 * (compat.md "Export document"), so verifying theirs and producing ours needs the same bytes:
 * `", "` / `": "` separators, keys sorted by code point at every level, everything outside
 * printable ASCII escaped as `\uXXXX`, and numbers as Python prints its ints and floats.
 *
 * Numbers: Python keeps int and float apart, JavaScript does not. The type is decided by
 * - `LosslessNumber` (from {@link parseLossless}): its original text, the way Python's parser
 *   decides (a fraction or exponent makes a float: `1.0`, `1e5`; `10` is an int);
 * - {@link PyFloat}: always a float, so our own `confidence: 1` is written `1.0` as Python would;
 * - a plain `number`: an int when it is a safe integer, else a float (beyond 2^53 a double no
 *   longer holds an int exactly, so its float form is the faithful one); `bigint`: an int.
 */

/** Marks a number Python holds as a float (written `1.0`, not `1`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

export function pythonJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

/**
 * Parses JSON keeping every number's text (as `LosslessNumber`), which checksum verification
 * needs: `JSON.parse` turns `1.0` into `1` and the re-serialised text no longer matches.
 * A repeated key keeps its last value, as Python's `json.loads` does.
 *
 * The native parser does the work (lossless-json's own parser builds every string a character
 * at a time, about 27 heap bytes per byte of text: a 9 MB document took 240 MB). Each number
 * token is first wrapped as a string marked with a leading NUL, which no accepted document can
 * hold (PostgreSQL text refuses NUL, so an escaped `\u0000` is refused here up front), and the
 * reviver turns the marked strings back into `LosslessNumber`s, which validate their text.
 */
export function parseLossless(text: string): unknown {
  if (ESCAPED_NUL.test(text)) throw new SyntaxError('NUL characters (\\u0000) are not allowed');
  return JSON.parse(markNumbers(text), (_key, value: unknown) => (typeof value === 'string' && value.charCodeAt(0) === 0 ? new LosslessNumber(value.slice(1)) : value));
}

const ESCAPED_NUL = /\\u0000/i;

function isNumberChar(c: number): boolean {
  // 0-9 . + - e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x65 || c === 0x45;
}

/** `[1.0, "a", -2]` → `["\u0000" + "1.0", "a", "\u0000" + "-2"]` (as JSON text), strings untouched. */
function markNumbers(text: string): string {
  const out: string[] = [];
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && isNumberChar(text.charCodeAt(j))) j++;
      out.push(text.slice(last, i), '"\\u0000', text.slice(i, j), '"');
      last = j;
      i = j - 1;
    }
  }
  out.push(text.slice(last));
  return out.join('');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function write(value: unknown, out: string[]): void {
  if (value === null) {
    out.push('null');
  } else if (value === true) {
    out.push('true');
  } else if (value === false) {
    out.push('false');
  } else if (typeof value === 'string') {
    out.push(quote(value));
  } else if (typeof value === 'number') {
    out.push(Number.isSafeInteger(value) ? String(value) : formatFloat(value));
  } else if (typeof value === 'bigint') {
    out.push(value.toString());
  } else if (value instanceof PyFloat) {
    out.push(formatFloat(value.value));
  } else if (isLosslessNumber(value)) {
    out.push(formatNumberText(value.value));
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(', ');
      write(item, out);
    });
    out.push(']');
  } else if (isPlainObject(value)) {
    out.push('{');
    Object.keys(value)
      .sort(compareCodePoints)
      .forEach((key, i) => {
        if (i > 0) out.push(', ');
        out.push(quote(key), ': ');
        write(value[key], out);
      });
    out.push('}');
  } else {
    // undefined, functions, Dates, class instances: Python would have no JSON for them either.
    throw new TypeError(`Value of type ${describe(value)} is not JSON serialisable`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return typeof value;
  return (value as object).constructor?.name ?? 'object';
}

/**
 * Python compares str by code point; JavaScript's default sort compares UTF-16 code units,
 * which puts astral characters (surrogates, 0xD800–0xDFFF) before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  // Equal code points have equal widths, so one index walks both strings.
  let i = 0;
  while (i < a.length && i < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const SHORT_ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x08: '\\b',
  0x0c: '\\f',
};

/** Python's `ensure_ascii` quoting: only 0x20–0x7E stay literal (DEL is escaped too). */
function quote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c >= 0x20 && c <= 0x7e) out += s[i];
    // Astral characters are already two UTF-16 units here, which is exactly Python's pair.
    else out += '\\u' + c.toString(16).padStart(4, '0');
  }
  return out + '"';
}

const INT_TEXT = /^-?\d+$/;

/** A JSON number's text as Python re-prints it after `json.loads`. */
function formatNumberText(text: string): string {
  if (INT_TEXT.test(text)) {
    // Python ints have no negative zero; JSON forbids leading zeros, so nothing else changes.
    return /^-0+$/.test(text) ? '0' : text;
  }
  return formatFloat(Number(text));
}

/**
 * Python's `repr(float)`: the shortest digits that round-trip (JavaScript's `toExponential()`
 * without an argument finds the same digits), in positional form while the decimal exponent
 * is in [-4, 16), else `d.ddde±XX`; integral values in positional form keep `.0`.
 */
export function formatFloat(x: number): string {
  if (!Number.isFinite(x)) {
    // Python would write NaN/Infinity, which no JSON parser (ours included) reads back.
    throw new TypeError(`Non-finite number ${x} is not JSON serialisable`);
  }
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = x.toExponential().split('e');
  const sign = x < 0 ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${m}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  const point = exponent + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point < digits.length) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
}
