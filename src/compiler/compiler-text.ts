/**
 * Text helpers shared by the heuristic compiler's pattern files and the stub embedding.
 * Everything here is pure and bounded: callers pass user text of any size and shape.
 */
import { oneLine } from 'src/common/text/one-line';

/** Typographic quotes and odd spaces, as chat clients and LLM-written turns emit them. */
const QUOTE_MAP: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201B': "'",
  '\u2032': "'",
  '`': "'",
  '\u00B4': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201F': '"',
  '\u00A0': ' ',
  '\u2007': ' ',
  '\u202F': ' ',
};

/** Straight quotes, plain spaces, no runs of spaces; newlines are kept (they carry list structure). */
export function normaliseText(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201B\u2032`\u00B4\u201C\u201D\u201F\u00A0\u2007\u202F]/g, (c) => QUOTE_MAP[c] ?? c)
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v]+/g, ' ');
}

/** Cuts `text` to at most `max` characters without splitting a UTF-16 surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** Shortens to `max` characters at a word boundary when one is near, marking the cut with `…`. */
export function truncateAtWord(text: string, max: number): string {
  const flat = oneLine(text);
  if (flat.length <= max) return flat;
  const room = cutChars(flat, Math.max(1, max - 1));
  const space = room.lastIndexOf(' ');
  // Only back off to a space when it keeps most of the budget; a long URL would otherwise vanish.
  const cut = space >= room.length * 0.6 ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:.!?-]+$/, '')}…`;
}

/** Abbreviations whose trailing dot does not end a sentence. */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'e.g', 'i.e', 'a.m', 'p.m', 'approx',
  'no', 'inc', 'ltd', 'co', 'corp', 'dept', 'mt', 'ft', 'u.s', 'u.k', 'fig', 'min', 'max', 'ave',
]);

/**
 * Splits text into sentences: on line breaks, and after `.`, `!`, `?` or `…` followed by a space,
 * unless the dot closes a known abbreviation. Returns at most `maxSentences` non-empty trimmed
 * sentences, each cut to `maxChars` so that every later regex runs on bounded input.
 */
export function splitSentences(text: string, maxSentences = 80, maxChars = 500): string[] {
  const out: string[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line.length === 0) continue;
    let start = 0;
    const boundary = /[.!?\u2026]+["')\]]*(?=\s)/g;
    let m: RegExpExecArray | null;
    while ((m = boundary.exec(line)) !== null) {
      const end = m.index + m[0].length;
      if (m[0] === '.' && ABBREVIATIONS.has(lastWord(line.slice(start, m.index)))) continue;
      if (m[0] === '.' && /(?:^|\s)\d{1,2}$/.test(line.slice(start, m.index))) continue;
      pushSentence(out, line.slice(start, end), maxChars);
      start = end;
      if (out.length >= maxSentences) return out;
    }
    pushSentence(out, line.slice(start), maxChars);
    if (out.length >= maxSentences) return out.slice(0, maxSentences);
  }
  return out;
}

function lastWord(text: string): string {
  const m = /([\p{L}.]+)$/u.exec(text);
  return m ? m[1].toLowerCase() : '';
}

function pushSentence(out: string[], sentence: string, maxChars: number): void {
  const trimmed = sentence.trim();
  if (trimmed.length > 0) out.push(cutChars(trimmed, maxChars));
}

/** Lowercase words of letters and digits (any script), apostrophes and inner hyphens dropped. */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/'/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * A light English suffix stripper (plural, -ing, -ed, final e, final y): enough for "sushi"/"Sushi!",
 * "plans"/"plan" or "hiking"/"hike" to meet in keys and embeddings, without a dictionary.
 * Stems need not be words, only the same for a word's common forms.
 */
export function stemWord(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (/(?:ies|ied)$/.test(w) && w.length > 4) w = `${w.slice(0, -3)}i`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5 && /[aeiouy]/.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length > 4 && /[aeiouy]/.test(w.slice(0, -2))) {
    w = undouble(w.slice(0, -2));
  }
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  // "study", "studies" and "studied" all end as "studi"; "play" keeps its y after a vowel.
  if (/[^aeiou]y$/.test(w) && w.length > 2) w = `${w.slice(0, -1)}i`;
  return w;
}

/** "running" -> "runn" -> "run"; keeps the "ll"/"ss" endings English really doubles. */
function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz|ff)$/.test(w) ? w.slice(0, -1) : w;
}

const KEY_FILLER = new Set([
  'a', 'an', 'the', 'my', 'our', 'your', 'his', 'her', 'their', 'some', 'any', 'all', 'this', 'that',
  'these', 'those', 'of', 'to', 'really', 'very', 'so', 'just', 'and', 'or',
]);

/**
 * The normalised form of a short phrase used inside attribute keys: lowercase stems without
 * articles or possessives, so "the Sushi" and "sushi" (or "dogs" and "dog") name the same object.
 * Bounded to six words; keys must stay short and stable.
 */
export function keyPhrase(text: string): string {
  const stems = words(text)
    .filter((w) => !KEY_FILLER.has(w))
    .slice(0, 6)
    .map(stemWord);
  return stems.join(' ');
}

/**
 * Comparison form of a short value: like `keyPhrase` but unbounded, so "likes: Dance",
 * "likes: dancing" and "likes: all dances" state the same thing.
 */
export function normalisedValue(text: string): string {
  return words(text)
    .filter((w) => !KEY_FILLER.has(w))
    .map(stemWord)
    .join(' ');
}

/** Comparison form for de-duplication: lowercase words only, punctuation and spacing ignored. */
export function comparable(text: string): string {
  return words(text).join(' ');
}

/** Title-cases a lowercase-typed name ("juno marsh" -> "Juno Marsh"); mixed case is kept. */
export function displayName(name: string): string {
  if (name !== name.toLowerCase()) return name;
  return name.replace(/(^|[\s'-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());
}
