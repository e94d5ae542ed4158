/**
 * Rules for who the subject is and how to reach them: name, contact details, work, plan,
 * location, time zone, language, account and devices. Mostly single-valued attributes, so a
 * newer statement supersedes the older one.
 */
import { DEMONYMS, DEVICE_CLASSES, DIETS, LANGUAGES, OCCUPATIONS, PLAN_TIERS } from './fact-lexicon';
import { DIGITS, FactMatch, FactRule, IM, WERE, keyedFact, profileFact, rx } from './fact-rule';
import {
  channelAt,
  clauseHead,
  emailAt,
  languagesAt,
  looksLikeOrg,
  orgName,
  phoneAt,
  phrase,
  placeName,
  planName,
  properName,
  timezoneAt,
} from './fact-values';
import { displayName, words } from './compiler-text';

const PLAN_CUES = [...PLAN_TIERS, 'plan', 'tier', 'subscription', 'package', 'edition', 'license', 'licence', 'membership', 'account'];
const LANGUAGE_CUES = [...LANGUAGES].flatMap(words);
const TIMEZONE_CUES = [
  'utc', 'gmt', 'pst', 'pdt', 'pt', 'est', 'edt', 'et', 'cst', 'cdt', 'ct', 'mst', 'mdt', 'mt', 'cet', 'cest', 'eet',
  'eest', 'wet', 'west', 'bst', 'ist', 'jst', 'kst', 'aest', 'aedt', 'acst', 'awst', 'nzst', 'nzdt', 'sgt', 'hkt', 'hst',
  'akst', 'pacific', 'eastern', 'central', 'mountain', 'atlantic', 'alaska', 'hawaii', 'greenwich', '/',
];
const DEVICE_CUES = [
  'iphone', 'ipad', 'pixel', 'galaxy', 'android', 'oneplus', 'motorola', 'xiaomi', 'huawei', 'macbook', 'imac', 'mac',
  'windows', 'chromebook', 'thinkpad', 'dell', 'surface', 'linux', 'ubuntu', 'chrome', 'firefox', 'safari', 'edge',
  'brave', 'opera', 'vivaldi', 'kindle', 'macos', 'ios', 'chromeos',
];

const EMAIL_QUALIFIER: Record<string, { attribute: string; label: string }> = {
  work: { attribute: 'work_email', label: 'work email' },
  business: { attribute: 'work_email', label: 'work email' },
  school: { attribute: 'work_email', label: 'work email' },
  backup: { attribute: 'secondary_email', label: 'secondary email' },
  secondary: { attribute: 'secondary_email', label: 'secondary email' },
  other: { attribute: 'secondary_email', label: 'secondary email' },
  alternate: { attribute: 'secondary_email', label: 'secondary email' },
};

function emailFact(rest: string, qualifier: string | undefined, confidence: number): FactMatch | null {
  const email = emailAt(rest);
  if (email === null) return null;
  const kind = EMAIL_QUALIFIER[qualifier?.toLowerCase() ?? ''] ?? { attribute: 'email', label: 'email' };
  return profileFact(kind.attribute, email, confidence, kind.label);
}

function phoneFact(rest: string, qualifier: string | undefined, confidence: number): FactMatch | null {
  const phone = phoneAt(rest);
  if (phone === null) return null;
  return /^(?:work|office|direct)$/i.test(qualifier ?? '')
    ? profileFact('work_phone', phone, confidence, 'work phone')
    : profileFact('phone', phone, confidence);
}

/** Suffixes that mark a role noun outside the occupation list ("radiologist", "statistician"). */
const ROLE_SUFFIX = /(?:ologist|ician|engineer|grapher|ographer|smith|wright)$/i;
const ROLE_STOPS = new Set(['at', 'for', 'with', 'in', 'from', 'on', 'of', 'who', 'and', 'but', 'so', 'by', 'to', 'here', 'there', 'now']);

/**
 * A role phrase ending in an occupation ("senior software engineer", "assistant manager"):
 * the words up to the last occupation among the first four. Null when none is an occupation.
 */
function rolePhrase(rest: string, requireOccupation: boolean): string | null {
  const tokens = clauseHead(rest)
    .split(/\s+/)
    .map((t) => t.replace(/[^\p{L}\p{N}&'/-]+$/u, '').replace(/-+$/, ''))
    .filter((t) => t.length > 0);
  let end = -1;
  for (let i = 0; i < Math.min(tokens.length, 4); i++) {
    const lower = tokens[i].toLowerCase();
    if (ROLE_STOPS.has(lower)) break;
    if (OCCUPATIONS.has(lower) || ROLE_SUFFIX.test(lower)) end = i;
  }
  if (end >= 0) return tokens.slice(0, end + 1).join(' ');
  if (requireOccupation) return null;
  const free = phrase(rest, { maxWords: 5, stopAt: ROLE_STOPS });
  return free.length > 0 ? free : null;
}

/** "… at Acme": the company after a role, if one follows. */
function companyAfter(rest: string, role: string): string | null {
  const after = rest.slice(rest.indexOf(role) + role.length);
  const m = /^\s+(?:at|for|with)\s+(.*)$/i.exec(after);
  if (!m) return null;
  const org = orgName(m[1], false);
  return org !== null && !/^(?:the\s+)?(?:team|company|moment)$/i.test(org) ? org : null;
}

function roleFacts(rest: string, requireOccupation: boolean, confidence: number, previous = false): FactMatch[] {
  const role = rolePhrase(rest.replace(/^\s*(?:an?|the)\s+/i, ''), requireOccupation);
  if (role === null) return [];
  const out = [profileFact(previous ? 'previous_role' : 'role', role, confidence)];
  const company = companyAfter(rest, role);
  // A student's institution is a school, not an employer.
  const place = /\bstudent$/i.test(role) ? 'school' : previous ? 'previous_company' : 'company';
  if (company !== null) out.push(profileFact(place, company, confidence, place.replace(/_/g, ' ')));
  return out;
}

const DEVICE_PATTERNS = DEVICE_CLASSES.map(({ cls, pattern }) => ({ cls, re: new RegExp(`^(?:${pattern})(?![\\w-])`, 'i') }));

function deviceFact(rest: string): FactMatch | null {
  const body = rest.replace(/^(?:(?:an?|the|new|old|brand new|work|personal|trusty)\s+)*/i, '');
  for (const { cls, re } of DEVICE_PATTERNS) {
    const m = re.exec(body);
    if (m) return keyedFact('device', `device:${cls.replace(/\s+/g, '_')}`, cls, deviceDisplay(m[0]), 0.75);
  }
  return null;
}

const DEVICE_NAMES: Record<string, string> = {
  iphone: 'iPhone', ipad: 'iPad', imac: 'iMac', macbook: 'MacBook', macos: 'macOS', ios: 'iOS', oneplus: 'OnePlus',
};

function deviceDisplay(value: string): string {
  if (value !== value.toLowerCase()) return value;
  return value
    .split(/\s+/)
    .map((w) => DEVICE_NAMES[w] ?? w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

export const PROFILE_RULES: FactRule[] = [
  {
    id: 'name.my_name',
    needs: [['name', 'names']],
    re: rx(String.raw`\bmy\s+(?:full\s+|first\s+|real\s+|legal\s+|given\s+)?name(?:'s|\s+is)\s+`),
    build: (_m, rest) => {
      const name = properName(rest, 4, true);
      return name === null ? null : profileFact('name', displayName(name), 0.95);
    },
  },
  {
    id: 'name.foreign',
    needs: [['llamo', 'nombre', 'appelle', 'nom', 'heiße', 'heisse', 'name', 'chiamo', 'nome', 'naam', 'heet']],
    re: rx(String.raw`\b(?:me\s+llamo|mi\s+nombre\s+es|je\s+m'appelle|mon\s+nom\s+est|ich\s+hei(?:ß|ss)e|mein\s+name\s+ist|mi\s+chiamo|il\s+mio\s+nome\s+è|meu\s+nome\s+é|eu\s+me\s+chamo|mijn\s+naam\s+is|ik\s+heet)\s+`),
    build: (_m, rest) => {
      const name = properName(rest, 4, true);
      return name === null ? null : profileFact('name', displayName(name), 0.9);
    },
  },
  {
    // "Hi, I'm Juno." / "This is Juno from Acme": a capitalised name after a greeting, closing
    // the clause, or followed by "from"/"at"/"here". "This is Paris!" under a photo is no name.
    id: 'name.intro',
    needs: [['im', 'am', 'this']],
    re: rx(String.raw`^((?:hi|hello|hey|hiya|good\s+(?:morning|afternoon|evening))(?:\s+there)?[,!.]?\s+)?(this\s+is|i'm|i\s+am|im)\s+(?=\p{Lu})`),
    build: (m, rest) => {
      const name = properName(rest, 3);
      if (name === null || DEMONYMS.has(name.toLowerCase())) return null;
      const after = /^\s*(?:$|[,.!]|(?:here|and)\b|(from|at|with)\s+(.*))/iu.exec(rest.trimStart().slice(name.length));
      if (!after) return null;
      const greeted = m[1] !== undefined;
      const introducedBy = after[1] !== undefined;
      const closes = /^\s*[.!]?\s*$/.test(rest.trimStart().slice(name.length));
      if (!greeted && !introducedBy && (/^this/i.test(m[2]) || !closes)) return null;
      const out = [profileFact('name', name, greeted || introducedBy ? 0.85 : 0.7)];
      const company = after[2] !== undefined ? orgName(after[2], false) : null;
      if (company !== null) out.push(profileFact('company', company, 0.75));
      return out;
    },
  },
  {
    id: 'name.call_me',
    needs: [['call', 'calls', 'go']],
    re: rx(String.raw`\b(?:(?:please\s+|you\s+can\s+|just\s+)?call\s+me|i\s+go\s+by|(?:everyone|people|friends)\s+call\s+me)\s+(?=\p{Lu})`),
    build: (_m, rest) => {
      const name = properName(rest, 2);
      return name === null ? null : profileFact('preferred_name', name, 0.8);
    },
  },
  {
    id: 'nationality',
    needs: [[...DEMONYMS].flatMap(words)],
    re: rx(String.raw`${IM}\s+(?:a\s+|an\s+|proudly\s+|originally\s+)?(${[...DEMONYMS].join('|')})(?![\w-])(?!\s+(?:food|restaurant|cuisine|movie|movies|music|show|shows|style|speaker|teacher|class)\b)`),
    build: (m) => profileFact('nationality', m[1].toLowerCase().replace(/(^|\s)(\p{L})/gu, (_x, sep: string, c: string) => sep + c.toUpperCase()), 0.75),
  },
  {
    id: 'contact.person',
    needs: [['my'], ['manager', 'boss', 'supervisor', 'assistant', 'accountant', 'lawyer', 'attorney', 'doctor', 'dentist', 'therapist', 'coach', 'landlord', 'colleague', 'coworker', 'co', 'cfo', 'ceo', 'cto']],
    re: rx(String.raw`\bmy\s+(manager|boss|supervisor|assistant|accountant|lawyer|attorney|doctor|dentist|therapist|coach|landlord|colleague|coworker|co-worker|cfo|ceo|cto)(?:'s\s+name)?\s+is\s+(?=\p{Lu})`),
    build: (m, rest) => {
      const name = properName(rest, 3);
      const role = m[1].toLowerCase();
      return name === null ? null : keyedFact('contact', `contact:${role}`, role, name, 0.85);
    },
  },
  {
    id: 'payment.card',
    needs: [['card', 'visa', 'mastercard', 'amex'], DIGITS],
    re: rx(String.raw`\bmy\s+(?:credit\s+|debit\s+|company\s+)?(card|visa|mastercard|amex)\s+(?:number\s+)?(?:ends|ending|that\s+ends)\s+(?:in|with)\s+(\d{4})\b`),
    build: (m) => profileFact('payment_card', `${m[1].toLowerCase()} ending ${m[2]}`, 0.85, 'payment card'),
  },
  {
    id: 'email.my',
    needs: [['@']],
    re: rx(String.raw`\bmy\s+(?:(new|updated|current|primary|main|work|personal|business|backup|secondary|other|alternate|school)\s+)?e-?mail(?:\s+address)?(?:\s+(?:is|=)(?:\s+now)?|\s*:|\s+(?:has\s+)?changed\s+to|\s+is\s+changing\s+to)?\s*`),
    build: (m, rest) => emailFact(rest, m[1], 0.9),
  },
  {
    id: 'email.reach',
    needs: [['@']],
    re: rx(String.raw`\b(?:e-?mail|reach|contact|write\s+to|message)\s+me\s+(?:at|on|via)\s+`),
    build: (_m, rest) => emailFact(rest, undefined, 0.85),
  },
  {
    id: 'email.change',
    needs: [['@']],
    re: rx(String.raw`\b(?:(?:please\s+)?(?:update|change|switch|set)|i(?:'ve|\s+have)?\s+(?:just\s+)?(?:changed|updated|switched))\s+my\s+(?:(work|business|backup|secondary)\s+)?e-?mail(?:\s+address)?\s+to\s+`),
    build: (m, rest) => emailFact(rest, m[1], 0.85),
  },
  {
    id: 'phone.my',
    needs: [DIGITS],
    re: rx(String.raw`\bmy\s+(?:(new|cell|mobile|work|home|office|direct)\s+)?(?:phone|cell|mobile|telephone|number)(?:\s+number)?(?:\s+(?:is|=)(?:\s+now)?|\s*:)?\s*`),
    build: (m, rest) => phoneFact(rest, m[1], 0.9),
  },
  {
    id: 'phone.reach',
    needs: [DIGITS],
    re: rx(String.raw`\b(?:call|text|reach|contact|ring|whatsapp)\s+me\s+(?:at|on)\s+`),
    build: (_m, rest) => phoneFact(rest, undefined, 0.85),
  },
  {
    id: 'phone.change',
    needs: [DIGITS],
    re: rx(String.raw`\b(?:(?:please\s+)?(?:update|change)|i(?:'ve|\s+have)?\s+(?:changed|updated))\s+my\s+(?:phone|number|phone\s+number|mobile|cell)(?:\s+number)?\s+to\s+`),
    build: (_m, rest) => phoneFact(rest, undefined, 0.85),
  },
  {
    id: 'account.id',
    needs: [['account', 'customer', 'client', 'member', 'membership', 'user', 'subscriber', 'policy', 'license', 'licence'], DIGITS],
    re: rx(String.raw`\bmy\s+(account|customer|client|member(?:ship)?|user|subscriber|policy|order|license|licence)\s*(?:id|number|no\.?|#|code|key)\s*(?:is|:|=)?\s*#?`),
    build: (m, rest) => {
      const id = /^([A-Za-z0-9][A-Za-z0-9-]{2,39})\b/.exec(rest.trimStart());
      if (!id || !/\d/.test(id[1])) return null;
      const kind = m[1].toLowerCase();
      // An order number belongs to one issue, not to who the customer is.
      if (kind === 'order') return null;
      if (kind === 'policy') return profileFact('policy_number', id[1], 0.9);
      if (kind.startsWith('licen')) return profileFact('license_key', id[1], 0.9, 'license key');
      return profileFact('account_id', id[1], 0.9, 'account id');
    },
  },
  {
    id: 'account.username',
    needs: [['username', 'user', 'handle', 'login']],
    re: rx(String.raw`\bmy\s+(?:user\s?name|handle|login)\s+(?:is\s+|:\s*)@?`),
    build: (_m, rest) => {
      const m = /^([\w.-]{2,40})/u.exec(rest);
      return m ? profileFact('username', m[1].replace(/\.$/, ''), 0.9) : null;
    },
  },
  {
    id: 'work.at',
    needs: [['work'], ['at', 'for']],
    re: rx(String.raw`\bi\s+(?:currently\s+|now\s+|still\s+|also\s+)?work\s+(?:at|for)\s+`),
    build: (_m, rest) => {
      if (/^\s*myself\b/i.test(rest)) return profileFact('role', 'self-employed', 0.85);
      const org = orgName(rest, true);
      return org === null ? null : profileFact('company', org, 0.85);
    },
  },
  {
    id: 'work.our_company',
    needs: [['company', 'business', 'startup', 'employer']],
    re: rx(String.raw`\b(?:our|my)\s+(?:company|business|startup|employer)(?:'s\s+name)?\s+is\s+(?:called\s+|named\s+)?`),
    build: (_m, rest) => {
      const org = orgName(rest, false);
      return org === null ? null : profileFact('company', org, 0.85);
    },
  },
  {
    id: 'work.as',
    needs: [['work'], ['as']],
    re: rx(String.raw`\bi\s+(?:currently\s+|now\s+|also\s+)?work\s+as\s+`),
    build: (_m, rest) => roleFacts(rest, false, 0.85),
  },
  {
    id: 'work.im_a',
    needs: [['im', 'am'], ['a', 'an', 'the']],
    re: rx(String.raw`${IM}\s+(?:currently\s+|now\s+|also\s+|still\s+)?(?:an?|the)\s+`),
    build: (_m, rest) => roleFacts(rest, true, 0.8),
  },
  {
    id: 'work.my_job',
    needs: [['job', 'title', 'position', 'role', 'occupation', 'profession']],
    re: rx(String.raw`\bmy\s+(?:current\s+|new\s+)?(job\s+title|title|position|job|role|occupation|profession)\s+(?:is|:)\s+`),
    build: (m, rest) => {
      // "my job is stressful" is no role: plain "job"/"role" needs an article or an occupation.
      const strict = /^(?:job|role)$/i.test(m[1]) && !/^\s*(?:an?|the)\s/i.test(rest);
      return roleFacts(rest, strict, 0.85);
    },
  },
  {
    id: 'work.previous',
    needs: [['job', 'position', 'role', 'work', 'laid', 'fired', 'let']],
    re: rx(String.raw`\b(?:(?:i\s+(?:just\s+|recently\s+)?)?(?:lost|quit|left)\s+my\s+(?:job|position|role)|i\s+used\s+to\s+work|i\s+was\s+(?:laid\s+off|let\s+go|fired))\s+`),
    build: (_m, rest) => {
      const as = /^as\s+(.*)$/i.exec(rest);
      if (as) return roleFacts(as[1], false, 0.8, true);
      const at = /^(?:at|for|with|from)\s+(.*)$/i.exec(rest);
      const org = at ? orgName(at[1], false) : null;
      return org === null ? null : profileFact('previous_company', org, 0.8, 'previous company');
    },
  },
  {
    id: 'work.status',
    needs: [['retired', 'unemployed', 'self', 'between', 'stay', 'full']],
    re: rx(String.raw`${IM}\s+(?:now\s+|recently\s+|currently\s+|happily\s+)?(retired|unemployed|self-employed|between\s+jobs|a\s+stay-at-home\s+(?:mom|mum|dad|parent)|a\s+full-time\s+(?:student|parent|mom|dad))(?![\w-])`),
    build: (m) => profileFact('role', m[1].replace(/^a\s+/i, '').toLowerCase(), 0.8),
  },
  {
    id: 'plan.on',
    needs: [PLAN_CUES],
    re: rx(String.raw`(?:(?:${IM}|${WERE})\s+(?:currently\s+|still\s+|now\s+)?(?:on|using|subscribed\s+to|paying\s+for|signed\s+up\s+for)|\b(?:i|we)\s+(?:currently\s+|still\s+)?(have|use|pay\s+for))\s+`),
    build: (m, rest) => {
      // "I have free time": after have/use only "… plan" names a plan.
      const plan = planName(rest, m[1] !== undefined);
      return plan === null ? null : profileFact('plan', plan, 0.9);
    },
  },
  {
    id: 'plan.my',
    needs: [PLAN_CUES],
    re: rx(String.raw`\b(?:my|our)\s+(?:current\s+)?(?:plan|subscription|tier|membership)\s+is\s+(?:now\s+|currently\s+)?`),
    build: (_m, rest) => {
      const plan = planName(rest);
      return plan === null ? null : profileFact('plan', plan, 0.9);
    },
  },
  {
    id: 'plan.changed',
    needs: [PLAN_CUES],
    re: rx(String.raw`\b(?:i|we)(?:'ve|ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|already\s+|now\s+)?(?:upgraded|downgraded|switched|moved|changed|migrated|signed\s+up)\s+(?:(?:our|my)\s+(?:plan|account|subscription|workspace|team)\s+)?(?:from\s+[^,.;!?]{1,40}?\s+)?(?:to|for)\s+`),
    build: (_m, rest) => {
      const plan = planName(rest);
      return plan === null ? null : profileFact('plan', plan, 0.9);
    },
  },
  {
    id: 'location.live',
    needs: [['live', 'reside', 'living']],
    re: rx(String.raw`(?:\bi\s+(?:currently\s+|now\s+|still\s+)?(?:live|reside)|${IM}\s+(?:currently\s+|now\s+)?living)\s+(in|near|outside(?:\s+of)?)\s+`),
    build: (m, rest) => {
      const place = placeName(rest, true);
      if (place === null) return null;
      return profileFact('location', /^in$/i.test(m[1]) ? place : `${m[1].toLowerCase()} ${place}`, 0.85);
    },
  },
  {
    id: 'location.based',
    needs: [['based', 'located', 'headquartered']],
    re: rx(String.raw`(?:${IM}|${WERE})\s+(?:currently\s+|now\s+)?(?:based|located|headquartered)\s+(?:in|out\s+of)\s+`),
    build: (_m, rest) => {
      const place = placeName(rest, true);
      return place === null ? null : profileFact('location', place, 0.85);
    },
  },
  {
    id: 'location.moved',
    needs: [['moved', 'relocated']],
    re: rx(String.raw`\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+(?:back\s+|over\s+)?to\s+`),
    build: (_m, rest) => {
      const place = placeName(rest, false);
      return place === null || looksLikeOrg(place) ? null : profileFact('location', place, 0.8);
    },
  },
  {
    id: 'hometown.from',
    needs: [['from']],
    re: rx(String.raw`${IM}\s+(?:originally\s+)?from\s+`),
    build: (_m, rest) => {
      const place = placeName(rest, false);
      if (place === null) return null;
      // "I'm from Acme Corp" introduces an employer, not a birthplace.
      return looksLikeOrg(place) ? profileFact('company', place, 0.75) : profileFact('hometown', place, 0.8);
    },
  },
  {
    id: 'hometown.grew_up',
    needs: [['grew', 'born', 'raised']],
    re: rx(String.raw`\bi\s+(?:grew\s+up|was\s+born|was\s+raised)\s+(?:in|on)\s+`),
    build: (_m, rest) => {
      const place = placeName(rest, false);
      return place === null ? null : profileFact('hometown', place, 0.85);
    },
  },
  {
    id: 'hometown.moved_from',
    needs: [['from']],
    re: rx(String.raw`\bi\s+(?:moved|immigrated|emigrated|came)\s+(?:here\s+|over\s+)?from\s+`),
    build: (_m, rest) => {
      const place = placeName(rest, false);
      return place === null ? null : profileFact('hometown', place, 0.75);
    },
  },
  {
    id: 'hometown.home_country',
    needs: [['home', 'hometown']],
    re: rx(String.raw`\bmy\s+home\s*(?:country|town|city|state)\s*(?:,\s*|\s+is\s+|\s+of\s+)`),
    build: (_m, rest) => {
      const place = placeName(rest, false);
      return place === null ? null : profileFact('hometown', place, 0.8);
    },
  },
  {
    id: 'timezone.my',
    needs: [['timezone', 'zone']],
    re: rx(String.raw`\bmy\s+time\s*zone\s*(?:is\s+|:\s*)`),
    build: (_m, rest) => {
      const tz = timezoneAt(rest);
      return tz === null ? null : profileFact('timezone', tz, 0.9);
    },
  },
  {
    id: 'timezone.in',
    needs: [TIMEZONE_CUES],
    re: rx(String.raw`(?:${IM}|${WERE})\s+(?:in|on|based\s+in|using)\s+(?:the\s+)?`),
    build: (_m, rest) => {
      const tz = timezoneAt(rest);
      return tz === null ? null : profileFact('timezone', tz, 0.85);
    },
  },
  {
    id: 'language.prefer',
    needs: [LANGUAGE_CUES],
    re: rx(String.raw`\bi(?:'d|\s+would)?\s+prefer\s+(?:to\s+(?:speak|talk|communicate|chat|write|be\s+helped)\s+)?(?:in\s+)?`),
    build: (_m, rest) => {
      const [language] = languagesAt(rest);
      return language === undefined ? null : profileFact('language', language, 0.85);
    },
  },
  {
    id: 'language.reply_in',
    needs: [LANGUAGE_CUES],
    re: rx(String.raw`\b(?:reply|respond|answer|write|talk|speak)\s+(?:to\s+me\s+)?(?:only\s+)?in\s+`),
    build: (_m, rest) => {
      const [language] = languagesAt(rest);
      return language === undefined ? null : profileFact('language', language, 0.8);
    },
  },
  {
    id: 'language.native',
    needs: [LANGUAGE_CUES],
    re: rx(String.raw`\bmy\s+(?:native|first|preferred|mother|main)\s+(?:language|tongue)\s+is\s+`),
    build: (_m, rest) => {
      const [language] = languagesAt(rest);
      return language === undefined ? null : profileFact('language', language, 0.9);
    },
  },
  {
    id: 'language.speak',
    needs: [LANGUAGE_CUES],
    re: rx(String.raw`(?:\bi\s+(?:also\s+|only\s+)?speak|${IM}\s+(?:also\s+)?fluent\s+in)\s+`),
    build: (_m, rest) =>
      languagesAt(rest).map((language) =>
        keyedFact('language_spoken', `language_spoken:${language.toLowerCase()}`, 'speaks', language, 0.8),
      ),
  },
  {
    id: 'contact.prefer',
    needs: [['prefer', 'rather']],
    re: rx(String.raw`\bi(?:'d|\s+would)?\s+(?:prefer|rather)\s+(?:(?:to\s+)?be\s+(?:contacted|reached)\s+(?:by|via|through|over|on)\s+|being\s+(?:contacted|reached)\s+(?:by|via|through|over|on)\s+|(?:to\s+)?(?:communicate|talk|hear\s+from\s+you|be\s+updated)\s+(?:by|via|through|over|on)\s+)?`),
    build: (_m, rest) => {
      const channel = channelAt(rest);
      return channel === null ? null : profileFact('contact_preference', channel, 0.85, 'contact preference');
    },
  },
  {
    id: 'contact.via',
    needs: [['me'], ['by', 'via', 'through', 'over', 'on']],
    re: rx(String.raw`\b(?:please\s+)?(?:only\s+)?(?:contact|reach|email|call|text|message|ping|update)\s+me\s+(?:only\s+)?(?:by|via|through|over|on)\s+`),
    build: (_m, rest) => {
      const channel = channelAt(rest);
      return channel === null ? null : profileFact('contact_preference', channel, 0.85, 'contact preference');
    },
  },
  {
    id: 'contact.best_way',
    needs: [['way']],
    re: rx(String.raw`\b(?:the\s+)?(?:best|easiest|preferred)\s+way\s+to\s+(?:reach|contact|get\s+(?:hold\s+of|in\s+touch\s+with))\s+me\s+is\s+(?:by\s+|via\s+|through\s+|over\s+)?`),
    build: (_m, rest) => {
      const channel = channelAt(rest);
      return channel === null ? null : profileFact('contact_preference', channel, 0.85, 'contact preference');
    },
  },
  {
    id: 'contact.channel_best',
    needs: [['best', 'better', 'easiest', 'preferred']],
    re: rx(String.raw`^(?:an?\s+)?([\p{L}-]+(?:\s[\p{L}-]+)?)\s+(?:is|works)\s+(?:best|better|easiest|preferred)\b`),
    build: (m) => {
      const channel = channelAt(m[1]);
      return channel === null ? null : profileFact('contact_preference', channel, 0.8, 'contact preference');
    },
  },
  {
    id: 'contact.availability',
    needs: [['available', 'reachable', 'free', 'around']],
    re: rx(String.raw`${IM}\s+((?:only\s+|usually\s+|generally\s+|not\s+)?(?:available|reachable|free|around)\s+(?:only\s+)?)(?=(?:after|before|between|from|until|on\s+weekdays|on\s+weekends|in\s+the\s+(?:morning|afternoon|evening)s?|mornings|evenings|weekdays|weekends)\b)`),
    build: (m, rest) => {
      const when = phrase(rest, { maxWords: 8, allowLists: true });
      if (!/\d|\b(?:am|pm|noon|morning|afternoon|evening|night|weekday|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b/i.test(when)) {
        return null;
      }
      const not = /^not\b/i.test(m[1]) ? 'not ' : '';
      return profileFact('availability', `${not}available ${when}`, 0.75);
    },
  },
  {
    id: 'device.use',
    needs: [DEVICE_CUES],
    re: rx(String.raw`(?:\bi(?:'m|m|\s+am)?\s+(?:currently\s+|now\s+|also\s+|still\s+|mostly\s+)?(?:use|using|on|have|own|got|running|run|bought|switched\s+to|upgraded\s+to|moved\s+to)|\bmy)\s+`),
    build: (_m, rest) => deviceFact(rest),
  },
  {
    id: 'diet',
    needs: [['vegetarian', 'vegan', 'pescatarian', 'gluten', 'lactose', 'dairy', 'keto', 'celiac', 'coeliac', 'diabetic', 'kosher', 'halal', 'paleo']],
    re: rx(String.raw`${IM}\s+(?:a\s+|now\s+|strictly\s+|mostly\s+|fully\s+)?(vegetarian|vegan|pescatarian|gluten[- ]free|lactose\s+intolerant|dairy[- ]free|keto|celiac|coeliac|diabetic|kosher|halal|paleo)(?![\w-])`),
    build: (m) => profileFact('diet', DIETS[m[1].toLowerCase().replace(/\s+/g, ' ')] ?? m[1].toLowerCase(), 0.85),
  },
];

/**
 * What an agent states it changed on the customer's account ("I've upgraded your account to
 * Enterprise"). Only these confirmations are taken from the agent side: everything else an
 * agent says is about the product or the agent, not about who the customer is.
 */
export const AGENT_RULES: FactRule[] = [
  {
    id: 'agent.plan_changed',
    needs: [PLAN_CUES],
    re: rx(String.raw`(?:\b(?:i|we)(?:'ve|ve|\s+have)\s+(?:now\s+|just\s+|successfully\s+)?(?:upgraded|downgraded|switched|moved|changed|migrated)\s+(?:you|your\s+(?:account|plan|subscription|workspace|team|organi[sz]ation))|\byour\s+(?:account|plan|subscription|workspace)\s+(?:has\s+been|is\s+now|was)\s+(?:successfully\s+)?(?:upgraded|downgraded|switched|moved|changed))\s+(?:over\s+)?(?:from\s+[^,.;!?]{1,40}?\s+)?to\s+`),
    build: (_m, rest) => {
      const plan = planName(rest);
      return plan === null ? null : profileFact('plan', plan, 0.85);
    },
  },
  {
    id: 'agent.plan_now',
    needs: [PLAN_CUES],
    re: rx(String.raw`\byou(?:'re|\s+are)\s+now\s+on\s+`),
    build: (_m, rest) => {
      const plan = planName(rest);
      return plan === null ? null : profileFact('plan', plan, 0.85);
    },
  },
  {
    id: 'agent.email_changed',
    needs: [['@']],
    re: rx(String.raw`\byour\s+e-?mail(?:\s+address)?\s+(?:has\s+been|is\s+now|was)\s+(?:successfully\s+)?(?:updated|changed|set)\s+to\s+`),
    build: (_m, rest) => emailFact(rest, undefined, 0.85),
  },
];
