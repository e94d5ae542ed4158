import { types } from 'pg';

/** PostgreSQL's type oids for `text[]`, `varchar[]` and `uuid[]`. */
export const WORD_ARRAY_OIDS: ReadonlySet<number> = new Set([1009, 1015, 2951]);

// pg's typings name only scalar types' oids; its registry holds the array types too.
const defaultStringArray = (types.getTypeParser as (oid: number, format: 'text') => unknown)(1009, 'text') as (text: string) => (string | null)[] | null;

/** `"` (quoted element), `\` (escape), `{` past the first (nested), `[` (dimension bounds). */
const NEEDS_FULL_PARSER = /["\\[]|.\{/s;

/**
 * A one-dimensional text, varchar or uuid array as PostgreSQL sends it: `{a,b,NULL}`. Why not
 * pg's own parser (postgres-array): it builds an object per character and joins them, so a
 * uuid costs some forty allocations; a context request reads several hundred memories, each
 * citing its source episodes by uuid[], and in an allocation profile of context requests that
 * parser was the third-largest allocator (231 MB over 762 requests), garbage the full collections
 * behind the latency tail then had to sweep. PostgreSQL quotes every element that holds a
 * delimiter, a brace, a quote, a backslash, white space or the word NULL, so an array without a
 * quote or backslash is plain elements between commas, and an unquoted NULL is the null element.
 * Anything else (quoted elements, nested arrays, explicit bounds) goes to pg's parser, so results
 * never differ (arrays.spec.ts compares the two).
 */
export function parseWordArray(text: string): (string | null)[] | null {
  if (text.length < 2 || text.charCodeAt(0) !== 123 || text.charCodeAt(text.length - 1) !== 125 || NEEDS_FULL_PARSER.test(text)) {
    return defaultStringArray(text);
  }
  if (text.length === 2) return [];
  const words: (string | null)[] = text.slice(1, -1).split(',');
  for (let i = 0; i < words.length; i++) if (words[i] === 'NULL') words[i] = null;
  return words;
}
