/**
 * Input that would reach the database badly is refused before it gets there: Postgres text and
 * jsonb cannot hold NUL, lone UTF-16 surrogates are not valid Unicode, JSON numbers past
 * float range parse to Infinity, and very deep nesting costs stack in every later walk.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Most JSON values (containers, elements, members) one request body may hold. A 2 MiB body of
 * `[0,0,…]` is a million values; parsed, copied by the validation pipe and walked, each costs
 * tens of bytes several times over, which is how one anonymous request used to exhaust a 192 MB
 * heap. 100,000 values is far above any episode or batch a client sends (a 1536-float vector is
 * 1,537) and bounds a parsed body to a few MB (docs/operations.md "Memory").
 */
export const MAX_JSON_NODES = 100_000;

export interface JsonProblem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'NUL characters are not allowed';
  if (LONE_SURROGATE.test(s)) return 'lone UTF-16 surrogates are not allowed';
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/**
 * Counts values and nesting in JSON text without parsing it: one pass, constant memory. Run
 * before `JSON.parse`, so a body that is too deep or has too many values never becomes objects.
 * Counting `[`, `{` and `,` outside strings over-counts by at most one per container, which is
 * what a cap needs. Malformed text is left to the parser.
 */
export function scanJsonShape(text: string, maxNodes = MAX_JSON_NODES, maxDepth = MAX_JSON_DEPTH): { problem: JsonProblem | null; values: number } {
  let depth = 0;
  let nodes = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Strings hold most of the text: jump to their closing quote (indexOf, not a loop over
      // every character), the first one not escaped, i.e. not after an odd run of backslashes.
      i = closingQuote(text, i);
      continue;
    }
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return { problem: { loc: ['body'], msg: `JSON nested deeper than ${maxDepth} levels`, type: 'too_deep' }, values: nodes };
      nodes++;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
    else if (c === COMMA) nodes++;
    if (nodes > maxNodes) return { problem: { loc: ['body'], msg: `JSON holds more than ${maxNodes} values`, type: 'too_many_values' }, values: nodes };
  }
  return { problem: null, values: nodes };
}

/** Where the string opened at `open` ends (its closing quote), or the end of the text if it does not. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

interface Frame {
  container: unknown[] | Record<string, unknown>;
  keys: string[] | null;
  next: number;
}

/**
 * Iterative depth-first walk whose memory is one frame per level of nesting (never one per
 * value): hostile depth cannot overflow the stack, and a wide body costs no more than a narrow
 * one. The path of a problem is built only when one is found.
 */
export function findJsonProblem(value: unknown, base: (string | number)[] = []): JsonProblem | null {
  const frames: Frame[] = [];
  const pathTo = (last?: string | number): (string | number)[] => {
    const path = [...base];
    for (const f of frames) path.push(f.keys ? f.keys[f.next - 1] : f.next - 1);
    if (last !== undefined) path.push(last);
    return path;
  };
  let current: unknown = value;
  for (;;) {
    if (typeof current === 'string') {
      const p = stringProblem(current);
      if (p) return { loc: pathTo(), msg: p, type: 'string_type' };
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return { loc: pathTo(), msg: 'numbers must be finite', type: 'finite_number' };
    } else if (current !== null && typeof current === 'object') {
      if (frames.length >= MAX_JSON_DEPTH) return { loc: pathTo(), msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' };
      const isArray = Array.isArray(current);
      const keys = isArray ? null : Object.keys(current);
      if (keys) {
        for (const k of keys) {
          const p = stringProblem(k);
          if (p) return { loc: pathTo(k), msg: `key: ${p}`, type: 'string_type' };
        }
      }
      frames.push({ container: current as Frame['container'], keys, next: 0 });
    }
    // Next value: the following child of the innermost container that has one left.
    current = undefined;
    while (frames.length > 0) {
      const f = frames[frames.length - 1];
      const size = f.keys ? f.keys.length : (f.container as unknown[]).length;
      if (f.next < size) {
        current = f.keys ? (f.container as Record<string, unknown>)[f.keys[f.next]] : (f.container as unknown[])[f.next];
        f.next++;
        break;
      }
      frames.pop();
    }
    if (frames.length === 0) return null;
  }
}
