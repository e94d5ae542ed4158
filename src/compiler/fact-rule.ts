import { words } from './compiler-text';

/**
 * The shape of a fact rule and the regex fragments rules share. A rule matches a trigger in a
 * statement clause ("my name is") and builds facts from the match and the text after it.
 */

export interface FactMatch {
  /** Machine name of what is known: `name`, `plan`, `likes`, `favorite`, `pet`, … */
  attribute: string;
  /** Overlap key before speaker qualification: `profile:plan`, `preference:sushi`, … */
  key: string;
  /** Label of the summary line (`name` in `name: Juno Marsh`). */
  label: string;
  value: string;
  confidence: number;
}

export interface FactRule {
  id: string;
  /**
   * Cheap pre-check before the regex: every group must have one entry in the clause, as a
   * word, or as a substring when the entry holds a non-letter ("@", digits). Most sentences
   * match no rule, and skipping their regexes keeps compilation well under a millisecond a turn.
   */
  needs?: readonly (readonly string[])[];
  /** Global, case-insensitive, unicode. Rules read the value from the text after the match. */
  re: RegExp;
  /**
   * Broad rules (likes, goals) give way to a specific rule that matched at the same place:
   * "I prefer email" is a contact preference, not a liking for email.
   */
  generic?: boolean;
  build(m: RegExpExecArray, rest: string, clause: string): FactMatch | FactMatch[] | null;
}

/** "I'm", "Im", "I am". */
export const IM = String.raw`\bi(?:'m|m|\s+am)`;
/** "I've", "Ive", "I have". */
export const IVE = String.raw`\bi(?:'ve|ve|\s+have)`;
/** "we're", "we are". */
export const WERE = String.raw`\bwe(?:'re|re|\s+are)`;

export const DIGITS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

export interface ClauseCues {
  words: ReadonlySet<string>;
  lower: string;
}

export function clauseCues(clause: string): ClauseCues {
  return { words: new Set(words(clause)), lower: clause.toLowerCase() };
}

/** A rule's `needs`, split once into word sets and substrings. */
export type CueCheck = (cues: ClauseCues) => boolean;

export function cueCheck(rule: FactRule): CueCheck {
  const groups = (rule.needs ?? []).map((group) => ({
    words: new Set(group.filter((cue) => /^\p{L}+$/u.test(cue))),
    parts: group.filter((cue) => !/^\p{L}+$/u.test(cue)),
  }));
  return (cues) =>
    groups.every((g) => {
      for (const w of g.words) if (cues.words.has(w)) return true;
      return g.parts.some((part) => cues.lower.includes(part));
    });
}

export function rx(source: string): RegExp {
  return new RegExp(source, 'giu');
}

/** A fact on a single-valued profile attribute: a newer value replaces the older one. */
export function profileFact(attribute: string, value: string, confidence: number, label = attribute.replace(/_/g, ' ')): FactMatch {
  return { attribute, key: `profile:${attribute}`, label, value, confidence };
}

/** A fact in a family of keys (`preference:sushi`, `pet:dog:rex`): only the same object overlaps. */
export function keyedFact(attribute: string, key: string, label: string, value: string, confidence: number): FactMatch {
  return { attribute, key, label, value, confidence };
}
