/**
 * Whitespace folding shared by the compiler and the bundle's renderer.
 */

/** Whitespace other than a single space (a tab, a newline, a no-break space), or two spaces in a row. */
const FOLDABLE = /[^\S ]| {2}/;
const SPACE = 32;

/**
 * Collapses all whitespace, newlines included, into single spaces and trims the ends: the same
 * string as `text.replace(/\s+/g, ' ').trim()`. Most texts (one chat turn, one fact) already are
 * one line, and the context path folds every candidate on each request, so a text with nothing to
 * fold is returned as it is after one scan, without building a copy.
 */
export function oneLine(text: string): string {
  const plain = text.charCodeAt(0) !== SPACE && text.charCodeAt(text.length - 1) !== SPACE && !FOLDABLE.test(text);
  return plain ? text : text.replace(/\s+/g, ' ').trim();
}
