/**
 * Input that would reach the database badly is refused before it gets there: Postgres text and
 * jsonb cannot hold NUL, lone UTF-16 surrogates are not valid Unicode, JSON numbers past
 * float range parse to Infinity, and very deep nesting costs stack in every later walk.
 */
export const MAX_JSON_DEPTH = 64;

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

/** Iterative walk (no recursion, so hostile depth cannot overflow the stack). */
export function findJsonProblem(value: unknown, base: (string | number)[] = []): JsonProblem | null {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: base }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const p = stringProblem(v);
      if (p) return { loc: path, msg: p, type: 'string_type' };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { loc: path, msg: 'numbers must be finite', type: 'finite_number' };
    } else if (v !== null && typeof v === 'object') {
      if (path.length - base.length >= MAX_JSON_DEPTH) {
        return { loc: path, msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' };
      }
      if (Array.isArray(v)) v.forEach((item, i) => stack.push({ v: item, path: [...path, i] }));
      else {
        for (const [k, item] of Object.entries(v)) {
          const p = stringProblem(k);
          if (p) return { loc: [...path, k], msg: `key: ${p}`, type: 'string_type' };
          stack.push({ v: item, path: [...path, k] });
        }
      }
    }
  }
  return null;
}
