/**
 * Readers that cut a fact's value out of the text following a trigger ("my name is ⟨…⟩").
 * A value ends at the clause's end: punctuation, a dash, or a word that starts a new clause.
 */
import { BARE_TIERS, CONTACT_CHANNELS, LANGUAGES, PLAN_TIERS } from './fact-lexicon';

/** Where a value's clause ends; a dot only when a space or the end follows ("Node.js" stays). */
const HARD_BOUNDARY = /[,;:!?()[\]{}"|\u2014\u2013\u2026]|\.(?=\s|$)|\s-+\s|\s-$/;

/** Words that open a new clause or a comment on the value rather than continue it. */
const CLAUSE_WORDS = new Set([
  'and', 'but', 'or', 'so', 'because', 'cause', "'cause", 'coz', 'cuz', 'since', 'though', 'although',
  'which', 'who', 'whom', 'whose', 'where', 'when', 'whenever', 'while', 'if', 'until', 'unless',
  'now', 'too', 'also', 'lol', 'haha', 'hehe', 'btw', 'anyway', 'anyways', 'yet', 'than', 'then',
  'right', 'especially', 'plus', 'thanks', 'thank', 'please', 'lately', 'nowadays', 'anymore',
  'again', 'ever', 'cos', 'as',
]);

/** Clause words that may sit inside a value when the value is a list ("hiking and camping"). */
const LIST_WORDS = new Set(['and', 'or']);

/** Pronouns and auxiliaries that, after "and", start a new clause ("sushi and I eat it daily"). */
const CONTRACTED_PRONOUN = /^(?:i|it|he|she|we|they|you|that|there|who|what)'(?:d|ll|s|re|ve|m)$/i;
const CLAUSE_STARTERS = new Set([
  'i', "i'm", 'im', "i've", "i'd", "i'll", 'it', "it's", 'its', 'we', "we're", 'they', "they're",
  'he', 'she', 'you', "you're", 'that', "that's", 'this', 'there', "there's", 'so', 'then', 'now',
  'also', 'is', 'was', 'are', 'have', 'has', 'had', 'do', 'does', 'did', 'will', 'would', 'can',
  'could', 'should', 'my', 'me', 'just', 'not', 'still', 'really', 'hope', 'want',
]);

/** Closing fillers that say how much, not what ("sushi so much", "tea as well"). */
const TRAILING_FILLER = /(?:\s+(?:so much|very much|a lot|a ton|a bunch|too|as well|lol|haha|right now|these days|at the moment|anymore|again|now|more|the most|most|though|tbh|honestly|really|forever|already|yet|ever|lately))+$/i;

/** The text before the first clause boundary. */
export function clauseHead(rest: string): string {
  const m = HARD_BOUNDARY.exec(rest);
  return (m ? rest.slice(0, m.index) : rest).trim();
}

export interface PhraseOptions {
  maxWords: number;
  /** Keep "and"/"or" between items when the next word does not start a new clause. */
  allowLists?: boolean;
  /** Extra words that end the phrase (e.g. "for" after a job title). */
  stopAt?: ReadonlySet<string>;
}

/** Subject pronouns inside a value open a relative clause: "the friends I have" ends at "I". */
const RELATIVE_SUBJECTS = new Set(['i', 'we', 'they', 'he', 'she', 'you', "i'm", 'im', "i've", "we're", "they're"]);

export interface Phrase {
  value: string;
  /** The clause went on past `maxWords`: the value may be cut mid-thought. */
  truncated: boolean;
}

/**
 * A free phrase value ("chocolate raspberry tart", "hiking and camping"), cut at the clause end,
 * at clause words, at a relative clause, and after `maxWords` words.
 */
export function readPhrase(rest: string, options: PhraseOptions): Phrase {
  const tokens = clauseHead(rest).split(/\s+/).filter((t) => t.length > 0);
  const out: string[] = [];
  let truncated = false;
  for (let i = 0; i < tokens.length; i++) {
    const lower = tokens[i].toLowerCase();
    if (options.stopAt?.has(lower)) break;
    if (out.length > 0 && RELATIVE_SUBJECTS.has(lower)) break;
    if (CLAUSE_WORDS.has(lower)) {
      const next = tokens[i + 1]?.toLowerCase();
      const listContinues =
        options.allowLists === true &&
        LIST_WORDS.has(lower) &&
        next !== undefined &&
        !CLAUSE_STARTERS.has(next) &&
        !CONTRACTED_PRONOUN.test(next);
      if (!listContinues || out.length === 0) break;
    }
    if (out.length >= options.maxWords) {
      truncated = true;
      break;
    }
    out.push(tokens[i]);
  }
  let value = out.join(' ');
  for (;;) {
    const stripped = value.replace(TRAILING_FILLER, '').replace(/\s+(?:and|or|the|a|an|of|to|with|in|on|at|for|my)$/i, '');
    if (stripped === value) break;
    value = stripped;
  }
  return { value: value.replace(/^['"]+|['"]+$/g, '').trim(), truncated };
}

/** `readPhrase` when a cut value is still a fine value (names of things, dates, plans). */
export function phrase(rest: string, options: PhraseOptions): string {
  return readPhrase(rest, options).value;
}

/** Name particles that may sit between capitalised parts ("Ludwig van Beethoven", "Bank of America"). */
const NAME_PARTICLES = new Set(['de', 'da', 'del', 'della', 'der', 'di', 'du', 'la', 'le', 'van', 'von', 'bin', 'al', 'of', 'the', '&', 'and', 'y', 'st.']);

/** Words capitalised at a sentence start or for emphasis that are never names. */
export const NOT_NAMES = new Set([
  'i', 'im', "i'm", 'a', 'an', 'the', 'not', 'so', 'just', 'really', 'very', 'here', 'there', 'back', 'sorry',
  'good', 'fine', 'great', 'ok', 'okay', 'sure', 'glad', 'happy', 'excited', 'still', 'also', 'now', 'well',
  'yes', 'no', 'yeah', 'thanks', 'hello', 'hi', 'hey', 'doing', 'going', 'trying', 'looking', 'having',
  'calling', 'writing', 'reaching', 'new', 'on', 'in', 'at', 'from', 'with', 'for', 'about', 'after',
  'before', 'tomorrow', 'today', 'tonight', 'anytime', 'asap', 'later', 'monday', 'tuesday', 'wednesday',
  'thursday', 'friday', 'saturday', 'sunday', 'it', 'this', 'that', 'you', 'we', 'they', 'he', 'she',
  'my', 'your', 'our', 'what', 'who', 'why', 'how', 'when', 'where', 'sir', 'madam', 'mom', 'dad',
  'buddy', 'dude', 'bro', 'friend', 'pal', 'man', 'wow', 'oh', 'aww', 'aw', 'omg', 'haha', 'lol', 'yay', 'ugh',
  'hmm', 'anyway', 'btw', 'plus', 'yep', 'nope', 'totally', 'absolutely', 'honestly', 'seriously', 'congrats',
  'cool', 'nice', 'awesome', 'amazing', 'sweet', 'please', 'thank', 'but', 'and', 'so', 'then', 'luckily',
  'sadly', 'unfortunately', 'hopefully', 'actually', 'basically', 'definitely', 'right', 'true',
]);

function isCapitalised(token: string): boolean {
  return /^(?:\p{Lu}|\p{Lo}|\d)/u.test(token);
}

function bareToken(token: string): string {
  return token.replace(/'s$/i, '').replace(/[^\p{L}\p{N}&.'-]+/gu, '');
}

/**
 * A proper name of up to `maxTokens` capitalised words ("Juno Marsh", "São Paulo", "Bank of
 * America"). With `allowLowercase`, a name typed in lowercase ("juno marsh") is accepted up to
 * its clause words, since people type their own names that way in chat. Returns null when the
 * text does not start with a plausible name.
 */
export function properName(rest: string, maxTokens: number, allowLowercase = false): string | null {
  const tokens = clauseHead(rest).split(/\s+/).filter((t) => t.length > 0);
  const first = tokens[0];
  if (first === undefined || NOT_NAMES.has(bareToken(first).toLowerCase())) return null;
  const out: string[] = [];
  if (isCapitalised(first)) {
    for (let i = 0; i < tokens.length && out.length < maxTokens; i++) {
      const token = bareToken(tokens[i]);
      const next = bareToken(tokens[i + 1] ?? '');
      if (token.length === 0) break;
      if (isCapitalised(token) && !NOT_NAMES.has(token.toLowerCase())) out.push(token);
      else if (out.length > 0 && NAME_PARTICLES.has(token.toLowerCase()) && isCapitalised(next) && !NOT_NAMES.has(next.toLowerCase())) {
        out.push(token);
      } else break;
      if (/'s$/i.test(tokens[i])) break;
    }
    while (out.length > 0 && NAME_PARTICLES.has(out[out.length - 1].toLowerCase())) out.pop();
  } else if (allowLowercase) {
    for (let i = 0; i < tokens.length && out.length < Math.min(maxTokens, 3); i++) {
      const token = bareToken(tokens[i]);
      const lower = token.toLowerCase();
      if (token.length === 0 || CLAUSE_WORDS.has(lower) || NOT_NAMES.has(lower) || CLAUSE_STARTERS.has(lower)) break;
      if (!/^\p{L}[\p{L}'-]*$/u.test(token)) break;
      out.push(token);
    }
  }
  return out.length > 0 ? out.join(' ') : null;
}

const LEADING_DETERMINERS = /^(?:(?:the|a|an|this|that|these|those|some|my|our|probably|definitely|def|gotta be|has to be|would be|totally|just)\s+)+/i;

/** A value without leading determiners: "this amazing tart" -> "amazing tart". */
export function withoutDeterminers(value: string): string {
  return value.replace(LEADING_DETERMINERS, '').trim();
}

const EMAIL = /[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/i;

/** The email address the text starts with (after an optional `<`), lowercased. */
const EMAIL_AT_START = new RegExp(`^\\s*<?(${EMAIL.source})`, 'i');

export function emailAt(rest: string): string | null {
  const m = EMAIL_AT_START.exec(rest);
  return m ? m[1].toLowerCase() : null;
}

/** The first email address anywhere in the text, lowercased. */
export function emailIn(text: string): string | null {
  const m = EMAIL.exec(text);
  return m ? m[0].toLowerCase() : null;
}

const PHONE = /\+?\(?\d[\d\s().-]{5,20}\d/;

/** A phone number of 7 to 15 digits (E.164 bounds) at the start of the text, as written. */
const PHONE_AT_START = new RegExp(`^\\s*(${PHONE.source})`);

export function phoneAt(rest: string): string | null {
  const m = PHONE_AT_START.exec(rest);
  return m && plausiblePhone(m[1]) ? m[1].trim() : null;
}

export function phoneIn(text: string): string | null {
  const m = PHONE.exec(text);
  return m && plausiblePhone(m[0]) ? m[0].trim() : null;
}

function plausiblePhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  return digits >= 7 && digits <= 15;
}

const ORG_SUFFIX = /\b(?:inc|corp|corporation|llc|ltd|limited|gmbh|ag|sa|co|company|labs|technologies|tech|software|systems|group|holdings|partners|studio|studios|agency|bank)\.?$/i;

/** True for names like "Acme Corp" or "Initech Labs" that are companies rather than places. */
export function looksLikeOrg(name: string): boolean {
  return ORG_SUFFIX.test(name);
}

/**
 * A place: capitalised words with an optional ", ST" or ", Country" tail ("Austin, TX"), a
 * leading "the" allowed before a capital ("the Bay Area"). Lowercase only when allowed.
 */
export function placeName(rest: string, allowLowercase: boolean): string | null {
  const body = rest.replace(/^\s*the\s+(?=\p{Lu})/u, '');
  const name = properName(body, 4);
  if (name !== null) {
    const tail = new RegExp(`^\\s*${escapeRegExp(name)},\\s*(\\p{Lu}{2,3}\\b|\\p{Lu}\\p{Ll}+(?:\\s\\p{Lu}\\p{Ll}+)?)`, 'u').exec(body);
    return tail ? `${name}, ${tail[1]}` : name;
  }
  if (!allowLowercase) return null;
  const value = phrase(rest, { maxWords: 4, stopAt: PLACE_STOPS });
  return value.length > 0 && !PRONOUN_START.test(value) ? value : null;
}

const PLACE_STOPS = new Set(['with', 'for', 'at', 'on', 'by', 'near', 'in', 'from', 'to', 'since', 'and']);

/** Values that refer back to the conversation instead of naming something. */
export const PRONOUN_START = /^(?:it|its|it's|that|this|these|those|them|they|him|her|he|she|you|your|yours|us|we|me|here|there|what|which|who|how|when|where|why|whatever|everything|anything|something|nothing|one|ones|such|so|same)\b/i;

/** A company: capitalised words ("Door Dash", "Bank of America"), or a short lowercase phrase when allowed. */
export function orgName(rest: string, allowLowercase: boolean): string | null {
  const name = properName(rest.replace(/^\s*the\s+(?=\p{Lu})/u, ''), 5);
  if (name !== null) return name;
  if (!allowLowercase) return null;
  const value = phrase(rest, { maxWords: 4, stopAt: PLACE_STOPS });
  return value.length > 0 && !PRONOUN_START.test(value) && !/^(?:myself|home|the moment|a while|a living)$/i.test(value) ? value : null;
}

const PLAN_NOUN = String.raw`(plan|tier|subscription|package|edition|licen[cs]e|membership|account)`;
const PLAN_ADJECTIVES = /^(?:(?:new|current|same|old|other|cheaper|cheapest|higher|lower|right|wrong|whole|entire|paid|existing|previous|latest|monthly|annual|yearly)\s+)*/i;

/**
 * A plan name: the words before "plan"/"tier"/… ("the Pro plan", "an Enterprise subscription"),
 * or, unless `requireNoun`, a tier word alone ("upgraded to Enterprise"). "… account" counts only after a tier word,
 * since "a Google account" names no plan. Display case: as typed, capitalised when lowercase.
 */
export function planName(rest: string, requireNoun = false): string | null {
  const body = rest.replace(/^\s*(?:the|a|an|our|your|my|their)\s+/i, '');
  const named = new RegExp(`^((?:[\\p{L}\\d+&-]+\\s+){0,2}?[\\p{L}\\d+&-]+)\\s+${PLAN_NOUN}s?\\b`, 'iu').exec(body);
  if (named) {
    const cleaned = named[1].replace(PLAN_ADJECTIVES, '').trim();
    const fallback = named[1].trim();
    const value = cleaned.length > 0 ? cleaned : /^(?:monthly|annual|yearly|paid)$/i.test(fallback) ? fallback : '';
    const lastWord = value.split(/\s+/).pop()?.toLowerCase() ?? '';
    const accountOk = named[2].toLowerCase() !== 'account' || PLAN_TIERS.has(lastWord);
    if (value.length > 0 && accountOk && !PRONOUN_START.test(value) && !/^(?:a|an|the|my|your|this|that)$/i.test(value)) {
      return capitalise(value);
    }
  }
  if (requireNoun) return null;
  const tier = /^([\p{L}]+)\b(?!\s+(?:of|for)\b)/u.exec(body);
  return tier && BARE_TIERS.has(tier[1].toLowerCase()) ? capitalise(tier[1]) : null;
}

function capitalise(value: string): string {
  return value === value.toLowerCase() ? value.replace(/(^|\s)(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase()) : value;
}

/** A contact channel at the start of the text, in its stored form ("text message", "email"). */
export function channelAt(rest: string): string | null {
  const tokens = clauseHead(rest).toLowerCase().replace(/^(?:an?|my|the)\s+/, '').split(/\s+/);
  for (const n of [3, 2, 1]) {
    const candidate = tokens.slice(0, n).join(' ');
    if (tokens.length >= n && CONTACT_CHANNELS[candidate] !== undefined) return CONTACT_CHANNELS[candidate];
  }
  // "call me on my cell": the device names the channel.
  return /^(?:cell|mobile|cellphone|landline)$/.test(tokens[0] ?? '') ? 'phone' : null;
}

const TZ_PATTERNS: RegExp[] = [
  /^((?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)/,
  /^((?:UTC|GMT)\s?[+\u2212-]\s?\d{1,2}(?::?\d{2})?)/i,
  /^((?:pacific|eastern|central|mountain|atlantic|alaska|hawaii|greenwich)(?:\s+(?:standard|daylight))?\s+time)/i,
  // Abbreviations only in capitals: lowercase "et", "ist" or "pt" are ordinary words.
  /^(UTC|GMT|[PMCE][SD]T|PT|ET|CT|MT|CET|CEST|EET|EEST|WET|WEST|BST|IST|JST|KST|AEST|AEDT|ACST|AWST|NZST|NZDT|SGT|HKT|HST|AKST)\b/,
];

/** A time zone (IANA name, UTC offset, "Pacific time", or a capitalised abbreviation) at the start. */
export function timezoneAt(rest: string): string | null {
  const body = rest.trimStart();
  for (const re of TZ_PATTERNS) {
    const m = re.exec(body);
    if (m) return m[1].replace(/\u2212/g, '-');
  }
  return null;
}

/** Languages listed at the start of the text ("French and German"), capitalised. */
export function languagesAt(rest: string): string[] {
  const out: string[] = [];
  for (const part of clauseHead(rest).split(/\s*(?:,|\band\b|\bor\b|&)\s*/i).slice(0, 6)) {
    const lower = part.trim().toLowerCase().replace(/^(?:fluent|some|a\s+bit\s+of|a\s+little|basic)\s+/, '');
    const word = LANGUAGES.has(lower) ? lower : lower.split(/\s+/)[0];
    if (!LANGUAGES.has(word)) break;
    out.push(word === 'asl' ? 'ASL' : word.replace(/(^|\s)(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase()));
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
