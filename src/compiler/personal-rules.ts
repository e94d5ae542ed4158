/**
 * Rules for the subject's life: family, pets, identity, likes and dislikes, favourites,
 * hobbies, goals, studies and ventures. These are many-valued: keys name the object
 * (`preference:sushi`, `pet:dog:rex`), so only statements about the same object overlap.
 */
import { keyPhrase, words } from './compiler-text';
import { IDENTITIES, LANGUAGES, PETS, PLAYABLES, RELATIONS } from './fact-lexicon';
import { DIGITS, FactMatch, FactRule, IM, IVE, keyedFact, profileFact, rx } from './fact-rule';
import { NOT_NAMES, PRONOUN_START, channelAt, clauseHead, phrase, properName, readPhrase, withoutDeterminers } from './fact-values';

const alternation = (items: readonly string[]): string =>
  [...items].sort((a, b) => b.length - a.length).map((w) => w.replace(/\s+/g, String.raw`\s+`)).join('|');

const RELATION_RE = alternation(RELATIONS);
/** "my horse painting" is a painting: a pet word followed by one of these names an object. */
const PET_RE = `(?:${alternation(PETS)})(?!\\s+(?:painting|paintings|drawing|drawings|photo|photos|picture|pictures|pic|pics|sculpture|figurine|figure|statue|print|poster|tattoo|mug|shirt|t-shirt|toy|toys|costume|food|treats|bed|video|videos|book|books|sticker|plush|ornament|themed|shaped|lover|lovers|sitter|walker|park|show|breed|breeds|allergy|allergies|hair|fur|rescue|shelter|cafe|café)\\b)`;
const RELATION_CUES = RELATIONS.flatMap(words);
const PET_CUES = PETS.flatMap(words);
const FAVORITE_CUES = ['favorite', 'favourite', 'fave', 'fav', 'faves', 'favs', 'favorites', 'favourites'];

/** Modifiers that tell relatives apart ("older sister", "late husband"); others are dropped. */
const KEPT_MODIFIERS = /^(?:late|twin|older|younger|little|big|eldest|oldest|youngest|step|baby)$/i;

/** Folds plural and synonym forms so "my kids" and "my children" are one fact. */
const RELATION_FORMS: Record<string, string> = {
  kid: 'children', kids: 'children', children: 'children', grandkids: 'grandchildren', mum: 'mom',
  mother: 'mom', father: 'dad', fiancé: 'fiance', fiancée: 'fiancee', sons: 'sons', daughters: 'daughters',
};

/** "Max" in "my son Max" / "my son, Max" / "my dog named Rex". */
function trailingName(rest: string): string | null {
  const m = /^(?:,\s*|\s+(?:named|called|is\s+called|whose\s+name\s+is)\s+|\s+)(?=\p{Lu})/u.exec(rest);
  if (!m) return null;
  const name = properName(rest.slice(m[0].length), 2);
  return name !== null && !/^(?:I|And|But|So)$/.test(name) ? name : null;
}

function relativeFact(modifiers: string, relation: string, rest: string, confidence: number): FactMatch {
  const rel = RELATION_FORMS[relation.toLowerCase()] ?? relation.toLowerCase().replace(/\s+/g, ' ');
  const kept = modifiers
    .split(/\s+/)
    .filter((w) => KEPT_MODIFIERS.test(w))
    .map((w) => w.toLowerCase());
  const what = [...kept, rel].join(' ');
  const name = trailingName(rest);
  const value = name === null ? what : `${what} ${name}`;
  const key = `family:${keyPhrase(what)}${name === null ? '' : `:${keyPhrase(name)}`}`;
  // Everyone has parents: a named relative or a partner, child or sibling says more.
  const telling = name !== null || !/^(?:mom|dad|parents|grandma|grandmother|grandpa|grandfather|grandparents|cousin|cousins|aunt|uncle)$/.test(rel);
  return keyedFact('family', key, 'family', value, telling ? confidence : Math.round((confidence - 0.2) * 100) / 100);
}

function petFact(species: string, rest: string, confidence: number): FactMatch {
  const kind = species.toLowerCase().replace(/\s+/g, ' ').replace(/s$/, '');
  const name = trailingName(rest);
  return keyedFact(
    'pet',
    `pet:${keyPhrase(kind)}${name === null ? '' : `:${keyPhrase(name)}`}`,
    'pet',
    name === null ? kind : `${kind} ${name}`,
    confidence,
  );
}

/** Objects that only make sense next to the conversation ("I love that", "I love your painting"). */
const CONTEXTUAL_OBJECT = /^(?:your|yours|ya|his|her|their|its|those|these|seeing|hearing|knowing|reading\s+about|being\s+able|when|if|how|what|the\s+(?:idea|way|thought|fact|sound|look|vibe|vibes|energy|photo|photos|pic|pics|picture|pictures|colou?rs?|message|shot|view|details|pattern|design|feeling)|all\s+the|seeing)\b/i;
/** "I love to see that": the infinitive is a reaction, not a liking. */
const REACTION_VERBS = /^to\s+(?:see|hear|know|chat|talk|meet|catch\s+up|say|read\s+about|learn\s+about|check|think|have\s+you|join\s+you|go\s+with|do\s+that|get\s+together|come\s+over)\b/i;

/** A liking of "it", "them" or "this" points into the conversation (a photo, the other's work). */
const DEICTIC = /\b(?:it|them|this|these|those|such)\b/i;
/** "a safe and loving home": an article and a common adjective before "and" pair adjectives, not items. */
const ADJECTIVE_PAIR =
  /(?:^|\s)(?:a|an|the|my|your|our|so|very|really)\s+(?:safe|loving|warm|inviting|welcoming|beautiful|happy|healthy|supportive|inclusive|creative|fun|cozy|quiet|peaceful|calm|strong|positive|new|old|big|small|good|great|nice|simple|clean|bright|dark|open|free|friendly|kind|caring|fresh|sweet|spicy|hot|cold|long|short|fast|slow|easy|hard|soft|rich|deep|wild|local|little|young|funny|scary|sad|classic|modern|live)\s+(?:and|or)\s+/iu;
const LIKED_STOPS = new Set(['that', 'which', 'who', 'when']);
/** "something I love is awesome": a verb right after the liking verb ends a relative clause. */
const AUXILIARY_START = /^(?:is|are|was|were|has|have|had|will|would|can|could|do|does|did|makes?|gives?|brings?|keeps?)\b/i;
/** "escaping to that world": a preposition then a demonstrative points at something shown. */
const POINTS_BACK = /^(?:[^\s,.;!?]+\s+){0,6}?(?:to|of|in|at|on|with|from|about|for|into)\s+(?:that|this|those|these|it|them)\b/i;

/**
 * The liked or disliked things after a verb: a short noun phrase or gerund, split into items
 * when it is a list of short ones ("hiking and camping"). Empty when it refers back to the
 * conversation or is a reaction; a list cut by the word limit loses its unfinished last item.
 */
function likedObjects(rest: string, stopAt: ReadonlySet<string> = LIKED_STOPS): string[] {
  const body = rest.trimStart();
  if (REACTION_VERBS.test(body) || POINTS_BACK.test(body)) return [];
  const { value, truncated } = readPhrase(body.replace(/^to\s+/i, ''), { maxWords: 10, allowLists: true, stopAt });
  if (value.length === 0 || PRONOUN_START.test(value) || CONTEXTUAL_OBJECT.test(value) || AUXILIARY_START.test(value)) return [];
  const split = value.split(/\s*,\s*|\s+(?:and|or|&)\s+/i).filter((p) => p.length > 0);
  // Split only parallel items: all short ("Bach and Mozart") or all gerunds ("hiking and camping").
  const parallel = split.every((p) => p.split(/\s+/).length <= 3) || split.every((p) => /^[\p{L}-]+ing\b/iu.test(p));
  const parts = ADJECTIVE_PAIR.test(value) || !parallel ? [value] : split;
  const items = (truncated ? parts.slice(0, -1) : parts).map(withoutDeterminers);
  return items.filter(
    (item) =>
      item.length <= 60 &&
      item.split(/\s+/).length <= 6 &&
      !DEICTIC.test(item) &&
      !/^(?:a|an|the|both|all|me|to)$/i.test(item) &&
      keyPhrase(item).length > 0,
  );
}

function preferenceFacts(objects: string[], likes: boolean, confidence: number): FactMatch[] {
  return objects.map((object) =>
    keyedFact('preference', `preference:${keyPhrase(object)}`, likes ? 'likes' : 'dislikes', object, confidence),
  );
}

const PREFER_STOPS = new Set([...LIKED_STOPS, 'over', 'instead', 'rather', 'than', 'to']);

/** "Painting landscapes is my favorite": the clause's subject before the verb. */
function subjectBefore(clause: string, index: number): string | null {
  const head = clause.slice(0, index);
  const start = Math.max(
    head.lastIndexOf(','),
    head.lastIndexOf(';'),
    head.lastIndexOf(':'),
    head.lastIndexOf(' - '),
    // "and" is left out: it joins the subject's own parts ("landscapes and still life").
    ...[...head.matchAll(/\b(?:but|so|though|because|cause|plus|yeah|yes|oh|well|wow|honestly|personally)\b/gi)].map(
      (m) => m.index + m[0].length - 1,
    ),
  );
  const said = head.slice(start + 1).trim().replace(/^['"]|['"]$/g, '');
  // "This trilogy is one of my faves" points at a photo or at the other speaker's words.
  if (/^(?:this|that|these|those|your|his|her|their)\b/i.test(said)) return null;
  const subject = withoutDeterminers(said);
  const count = subject.split(/\s+/).length;
  if (subject.length === 0 || count > 6 || PRONOUN_START.test(subject) || /^(?:i|i'm|im|my|mine|you|we)\b/i.test(subject)) return null;
  return subject;
}

const GOAL_VERBS = String.raw`start|open|launch|become|build|write|publish|travel|visit|learn|adopt|retire|own|run\s+(?:a|my)|get\s+(?:a|my)\s+(?:degree|masters|phd|license|licence|certification)|go\s+back\s+to\s+school|move\s+to|finish|complete|buy\s+a\s+(?:house|home)`;
const SUPPORT_OBJECTS = /\b(?:ticket|case|account|request|dispute|claim|return|refund|session|file|tab|window|link|page|issue|order|subscription|trial|chat|conversation|support|invoice|report|settings|app)\b/i;
const VENTURE_NOUNS = /\b(?:studio|store|shop|business|company|startup|bakery|cafe|café|restaurant|brand|agency|firm|practice|clinic|salon|gym|label|line|channel|podcast|blog|nonprofit|non-profit|charity|foundation|band|website|app|venture|school|center|centre|boutique|farm|food\s+truck|bar|club|consultancy|shelter|organization|organisation)$/i;

export const PERSONAL_RULES: FactRule[] = [
  {
    // "our kids" in talk about schools is everyone's kids; "our son" is the speaker's.
    id: 'family.my',
    needs: [['my', 'our'], RELATION_CUES],
    re: rx(String.raw`\b(?:my|our(?!\s+(?:kids|children|parents|grandparents)\b))\s+((?:(?:little|big|older|younger|eldest|oldest|youngest|twin|baby|two|three|four|\d|new(?:born)?|step|adult|teenage|lovely|amazing|sweet|beautiful|wonderful|awesome|late|dear|own)\s+){0,2})(${RELATION_RE})(?![\w-])`),
    build: (m, rest) => relativeFact(m[1], m[2], rest, 0.7),
  },
  {
    id: 'family.have',
    needs: [['have', 'got'], RELATION_CUES],
    re: rx(String.raw`\b(?:i|we)\s+(?:have|'ve\s+got|have\s+got|got)\s+(an?|one|two|three|four|five|six|\d)\s+(?:(?:little|young|grown|grown-up|adult|teenage|wonderful|beautiful|amazing|older|younger)\s+)?(kids|children|sons|daughters|sisters|brothers|siblings|grandkids|grandchildren|son|daughter|sister|brother|kid|child|boys|girls|boy|girl)\b`),
    build: (m, rest) => {
      if (/^(?:an?|one)$/i.test(m[1])) return relativeFact('', m[2], rest, 0.8);
      const rel = RELATION_FORMS[m[2].toLowerCase()] ?? m[2].toLowerCase();
      return keyedFact('family', `family:count:${keyPhrase(rel)}`, 'family', `${m[1].toLowerCase()} ${m[2].toLowerCase()}`, 0.85);
    },
  },
  {
    id: 'family.parent',
    needs: [['mom', 'mum', 'mother', 'dad', 'father', 'parent', 'grandma', 'grandpa', 'grandmother', 'grandfather']],
    re: rx(String.raw`${IM}\s+(?:a\s+)?(?:proud\s+|single\s+|new\s+|busy\s+|working\s+|first-time\s+)?(mom|mum|mother|dad|father|parent|grandma|grandpa|grandmother|grandfather)\b(?:\s+(?:of|to)\s+(an?|one|two|three|four|five|\d)\b)?`),
    build: (m) => {
      const role = m[1].toLowerCase();
      const value = m[2] === undefined ? role : `${role} of ${m[2].toLowerCase()}`;
      return keyedFact('family', `family:parent`, 'family', value, 0.8);
    },
  },
  {
    id: 'family.relationship',
    needs: [['married', 'engaged', 'single', 'divorced', 'separated', 'widowed']],
    re: rx(String.raw`(?:${IM}\s+(?:happily\s+|recently\s+|newly\s+|now\s+|still\s+)?|\bi\s+(?:just\s+|recently\s+)?got\s+)(married|engaged|single|divorced|separated|widowed)(?![\w-])`),
    build: (m) => profileFact('relationship_status', m[1].toLowerCase(), 0.85, 'relationship status'),
  },
  {
    id: 'pet.my',
    needs: [PET_CUES],
    re: rx(String.raw`\b(?:my|our)\s+(?:(?:new|old|little|sweet|rescue|senior|baby|two|three|\d|adopted|furry|beloved)\s+)?(${PET_RE})(?![\w-])`),
    build: (m, rest) => petFact(m[1], rest, 0.75),
  },
  {
    id: 'pet.have',
    needs: [PET_CUES],
    re: rx(String.raw`\b(?:i|we)\s+(?:have|own|got|adopted|rescued|'ve\s+got|have\s+got|just\s+got|just\s+adopted)\s+(?:an?|one|two|three|\d|a\s+new|another)\s+(?:(?:little|rescue|new|cute|sweet|adorable)\s+)?(${PET_RE})(?:s)?(?![\w-])`),
    build: (m, rest) => petFact(m[1], rest, 0.85),
  },
  {
    id: 'pet.named_first',
    needs: [PET_CUES],
    re: rx(String.raw`(?:^|[\s,;:-])(\p{Lu}[\p{L}'-]+),\s+(?:my|our)\s+(?:(?:new|old|little|sweet|rescue|senior|baby)\s+)?(${PET_RE})(?![\w-])`),
    build: (m) => (NOT_NAMES.has(m[1].toLowerCase()) ? null : petFact(m[2], `, ${m[1]}`, 0.8)),
  },
  {
    id: 'identity',
    needs: [[...IDENTITIES].flatMap(words)],
    re: rx(String.raw`(?:${IM}|\bas)\s+(?:an?\s+)?(?:proud\s+|openly\s+)?(${[...IDENTITIES].join('|')})(?:\s+(woman|man|person|guy|girl|lady|boy|individual))?(?![\w-])`),
    build: (m, _rest, clause) => {
      const byAs = /^as$/i.test(m[0].trim().split(/\s+/)[0]);
      // "your courage as a trans person" is about the other speaker.
      if (byAs && /\b(?:you|your|yours|he|she|his|her|they|their)\b/i.test(clause.slice(0, m.index))) return null;
      const value = [m[1], m[2]].filter((p) => p !== undefined).join(' ').toLowerCase();
      return keyedFact('identity', `identity:${keyPhrase(m[1])}`, 'identity', value, byAs ? 0.7 : 0.8);
    },
  },
  {
    id: 'age',
    needs: [DIGITS],
    re: rx(String.raw`(?:${IM}\s+|\bi\s+(?:just\s+)?turned\s+)(\d{1,3})(?:\s*(?:years?\s+old|yrs?\s+old|yo|y\/o)\b|(?=\s+(?:now|today|this\s+year)\b|\s*[.!,]|$))`),
    build: (m) => {
      const age = Number(m[1]);
      // "I'm 5 minutes away" never reaches here (needs "years old" or a clause end); still bound it.
      return age >= 5 && age <= 120 ? profileFact('age', String(age), /turned/i.test(m[0]) ? 0.85 : 0.8) : null;
    },
  },
  {
    id: 'birthday',
    needs: [['birthday', 'bday', 'birth', 'dob']],
    re: rx(String.raw`\bmy\s+(?:birthday|bday|date\s+of\s+birth|dob)\s+is\s+(?:on\s+)?`),
    build: (_m, rest) => {
      const when = phrase(rest, { maxWords: 4 });
      const dated = /\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b/i.test(when);
      return dated ? profileFact('birthday', when, 0.9) : null;
    },
  },
  {
    id: 'pronouns',
    needs: [['pronouns']],
    re: rx(String.raw`\bmy\s+pronouns\s+are\s+([a-z]+\s*\/\s*[a-z]+(?:\s*\/\s*[a-z]+)?)`),
    build: (m) => profileFact('pronouns', m[1].replace(/\s+/g, '').toLowerCase(), 0.95),
  },
  {
    id: 'allergy',
    needs: [['allergic']],
    re: rx(String.raw`${IM}\s+(?:severely\s+|very\s+|deathly\s+|really\s+|also\s+)?allergic\s+to\s+`),
    build: (_m, rest) =>
      likedObjects(rest).map((item) => keyedFact('allergy', `allergy:${keyPhrase(item)}`, 'allergy', item, 0.9)),
  },
  {
    id: 'hobby.my',
    needs: [['hobby', 'hobbies']],
    re: rx(String.raw`\bmy\s+(?:favou?rite\s+|main\s+|new\s+|biggest\s+)?hobb(?:y|ies)\s+(?:is|are|include|includes|:)\s+`),
    build: (_m, rest) => likedObjects(rest).map((item) => keyedFact('hobby', `hobby:${keyPhrase(item)}`, 'hobby', item, 0.85)),
  },
  {
    id: 'hobby.free_time',
    needs: [['free', 'spare', 'down', 'downtime']],
    re: rx(String.raw`\bin\s+my\s+(?:free|spare|down)\s*time,?\s+i\s+(?:like\s+to\s+|love\s+to\s+|enjoy\s+|usually\s+|often\s+|mostly\s+)?`),
    build: (_m, rest) => likedObjects(rest).map((item) => keyedFact('hobby', `hobby:${keyPhrase(item)}`, 'hobby', item, 0.75)),
  },
  {
    id: 'hobby.play',
    needs: [['play', 'practice', 'practise']],
    re: rx(String.raw`\bi\s+(?:also\s+|still\s+|really\s+|regularly\s+)?(?:play|practice|practise)\s+(?:the\s+)?`),
    build: (_m, rest) => {
      const head = clauseHead(rest).toLowerCase().split(/\s+/);
      for (const n of [3, 2, 1]) {
        const candidate = head.slice(0, n).join(' ');
        if (head.length >= n && PLAYABLES.has(candidate)) return keyedFact('hobby', `hobby:${keyPhrase(candidate)}`, 'hobby', candidate, 0.75);
      }
      return null;
    },
  },
  {
    id: 'hobby.for_years',
    needs: [['been'], ['doing', 'playing', 'practicing', 'practising']],
    re: rx(String.raw`${IVE}\s+been\s+(?:doing|playing|practicing|practising)\s+((?:[\p{L}'-]+\s+){0,3}?[\p{L}'-]+)\s+(?:for|since)\s+(?:\d+|a|an|many|several|years|ages|i\s+was)\b`),
    build: (m) => {
      const item = withoutDeterminers(m[1]);
      return PRONOUN_START.test(item) ? null : keyedFact('hobby', `hobby:${keyPhrase(item)}`, 'hobby', item, 0.75);
    },
  },
  {
    id: 'venture',
    needs: [['own', 'run', 'founded', 'co', 'started', 'launched', 'opened', 'starting', 'opening', 'launching', 'running', 'start', 'open', 'launch']],
    re: rx(String.raw`(?:\bi\s+(own|run|founded|co-founded|started|launched|opened)|${IM}\s+(?:also\s+|now\s+|finally\s+)?(starting|opening|launching|running)|\bi\s+(?:wanna|want\s+to|plan\s+to|hope\s+to|am\s+going\s+to|'m\s+going\s+to|'m\s+gonna|m\s+gonna)\s+(start|open|launch))\s+(?:my\s+own\s+|my\s+|an?\s+(?:new\s+|small\s+|little\s+)?|our\s+own\s+)`),
    build: (m, rest) => {
      const value = phrase(rest, { maxWords: 4, stopAt: new Set(['in', 'at', 'for', 'with', 'to', 'on', 'of', 'that']) });
      if (!VENTURE_NOUNS.test(value) || PRONOUN_START.test(value)) return null;
      const running = m[1] !== undefined || /^running$/i.test(m[2] ?? '');
      return keyedFact('business', `business:${keyPhrase(value)}`, running ? 'runs' : 'starting', value, running ? 0.8 : 0.7);
    },
  },
  {
    // "my clothing store" said by its owner; "my favorite store" or "my local shop" is a customer's.
    id: 'venture.my',
    needs: [['my'], ['studio', 'store', 'shop', 'business', 'startup', 'bakery', 'brand', 'agency', 'boutique', 'nonprofit', 'podcast', 'blog', 'band', 'channel', 'line']],
    re: rx(String.raw`\bmy\s+(?!(?:ideal|dream|favou?rite|local|usual|regular|go-to|nearest|next|previous|old|new\s+favou?rite)\b)((?:own\s+)?(?:[\p{L}-]+\s+){0,2}?(?:studio|store|shop|business|startup|bakery|brand|agency|boutique|nonprofit|podcast|blog|band|youtube\s+channel|clothing\s+line))\b(?!\s+(?:owner|account|card|order|visit|trip))`),
    build: (m) => {
      const value = m[1].replace(/^own\s+/i, '').toLowerCase();
      // A bare "my store" or "my business" says too little to be worth a memory.
      if (!/\s/.test(value)) return null;
      return keyedFact('business', `business:${keyPhrase(value)}`, 'runs', value, 0.65);
    },
  },
  {
    id: 'education.studying',
    needs: [['studying', 'majoring', 'degree', 'masters', 'phd', 'bachelors', 'ba', 'bs', 'ma', 'ms']],
    re: rx(String.raw`${IM}\s+(?:currently\s+|now\s+|also\s+)?(?:studying|majoring\s+in|doing\s+(?:a|my)\s+(?:degree|masters|master's|phd|bachelor's|ba|bs|ma|ms)\s+in)\s+`),
    build: (_m, rest) => {
      const subject = phrase(rest, { maxWords: 5, stopAt: new Set(['at', 'for', 'with', 'to', 'hard', 'so', 'because']) });
      if (subject.length === 0 || PRONOUN_START.test(subject) || /^(?:a lot|for|up|late|hard)\b/i.test(subject)) return null;
      return keyedFact('education', `education:${keyPhrase(subject)}`, 'studies', subject, 0.75);
    },
  },
  {
    id: 'education.graduated',
    needs: [['graduated', 'degree']],
    re: rx(String.raw`\bi\s+(?:graduated|have\s+a\s+degree|got\s+my\s+degree|earned\s+my\s+degree|finished\s+my\s+degree)\s+(from|in)\s+`),
    build: (m, rest) => {
      const what = properName(rest, 5) ?? phrase(rest, { maxWords: 4, stopAt: new Set(['at', 'with', 'last', 'this']) });
      if (what.length === 0 || PRONOUN_START.test(what) || /^\d/.test(what)) return null;
      return keyedFact('education', `education:${keyPhrase(what)}`, `graduated ${m[1].toLowerCase()}`, what, 0.8);
    },
  },
  {
    id: 'learning',
    needs: [['learning', 'taking']],
    re: rx(String.raw`${IM}\s+(?:currently\s+|also\s+|now\s+|slowly\s+)?(?:learning|taking\s+(?:a\s+)?(?:class(?:es)?|lessons|course)\s+(?:in|on))\s+(?:how\s+to\s+|to\s+)?`),
    build: (_m, rest) => {
      const subject = phrase(rest, { maxWords: 5, stopAt: new Set(['from', 'with', 'at', 'for', 'so']) });
      if (subject.length === 0 || PRONOUN_START.test(subject) || /^(?:a\s+(?:lot|ton|bunch)|so|more|from|lots|loads|about|new|to)\b/i.test(subject)) return null;
      return keyedFact('learning', `learning:${keyPhrase(subject)}`, 'learning', subject, 0.7);
    },
  },
  {
    id: 'goal.my',
    needs: [['goal', 'dream', 'aim', 'ambition', 'mission']],
    re: rx(String.raw`\bmy\s+(?:main\s+|big\s+|biggest\s+|ultimate\s+|long-term\s+|current\s+|new\s+|next\s+|life(?:long)?\s+)?(?:goal|dream|aim|ambition|mission)\s+(?:is|has\s+always\s+been|was\s+always)\s+(?:to\s+)?`),
    build: (_m, rest) => {
      const goal = phrase(rest, { maxWords: 10, allowLists: true });
      if (goal.split(/\s+/).length < 2 || PRONOUN_START.test(goal)) return null;
      return keyedFact('goal', `goal:${keyPhrase(goal)}`, 'goal', goal, 0.75);
    },
  },
  {
    id: 'goal.want',
    needs: [['want', 'wanna', 'hope', 'plan', 'aim', 'intend', 'dream', 'planning', 'hoping', 'aiming', 'saving', 'working']],
    generic: true,
    re: rx(String.raw`(?:\bi\s+(?:really\s+|still\s+|eventually\s+|someday\s+)?(?:want|wanna|hope|plan|aim|intend|dream)|${IM}\s+(?:planning|hoping|aiming|saving\s+up|working\s+hard))\s+(?:to\s+)?(?:eventually\s+|someday\s+|one\s+day\s+)?(${GOAL_VERBS})\s+`),
    build: (m, rest) => {
      const object = phrase(rest, { maxWords: 6 });
      if (object.length === 0 || PRONOUN_START.test(object) || /^(?:more|soon|sometime|again)\b/i.test(object)) return null;
      // "I want to open a ticket" is a support request, not a life goal.
      if (SUPPORT_OBJECTS.test(object)) return null;
      const goal = `${m[1].toLowerCase().replace(/\s+/g, ' ')} ${object}`;
      return keyedFact('goal', `goal:${keyPhrase(goal)}`, 'goal', goal, 0.65);
    },
  },
  {
    id: 'goal.saving',
    needs: [['saving']],
    re: rx(String.raw`${IM}\s+(?:currently\s+)?saving\s+(?:up\s+)?(?:money\s+)?(?:for|to\s+buy)\s+`),
    build: (_m, rest) => {
      const target = phrase(rest, { maxWords: 6 });
      if (target.length === 0 || PRONOUN_START.test(target)) return null;
      return keyedFact('goal', `goal:${keyPhrase(`save for ${target}`)}`, 'goal', `save for ${target}`, 0.7);
    },
  },
  {
    id: 'favorite.plain',
    needs: [FAVORITE_CUES],
    re: rx(String.raw`\bmy\s+(?:all[- ]time\s+|absolute\s+)?(?:favou?rite|fave?|fav)\s+(?:is|are|has\s+to\s+be)\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(withoutDeterminers(rest.trimStart())), true, 0.75),
  },
  {
    id: 'favorite.my',
    needs: [FAVORITE_CUES],
    re: rx(String.raw`\bmy\s+(?:all[- ]time\s+|absolute\s+|personal\s+|current\s+)?(?:favou?rite|fave?|fav)\s+((?:[\p{L}'-]+\s+){0,2}?[\p{L}'-]+)\s+(?:is|are|has\s+to\s+be|would\s+(?:have\s+to\s+)?be|:)\s+`),
    build: (m, rest) => {
      const category = m[1].toLowerCase();
      // "my favorite part is …" tells of an episode; "my favorite thing is …" is a plain liking;
      // hobbies have their own rule.
      if (/^(?:part|moment|memory|memories|day|time|bit|one|hobby|hobbies)$/.test(category)) return null;
      const objects = likedObjects(withoutDeterminers(rest.trimStart()));
      if (objects.length === 0) return null;
      if (/^things?$/.test(category)) return preferenceFacts(objects, true, 0.8);
      return keyedFact('favorite', `favorite:${keyPhrase(category)}`, `favorite ${category}`, objects.join(', '), 0.85);
    },
  },
  {
    id: 'favorite.is_my',
    needs: [['my'], [...FAVORITE_CUES, 'top', 'go', 'passion', 'thing', 'jam', 'outlet', 'outlets', 'escape', 'therapy', 'happy', 'relief']],
    re: rx(String.raw`(?:\s+(?:is|are|has\s+been|have\s+been)|'s)\s+(?:definitely\s+|probably\s+|still\s+|really\s+|totally\s+|always\s+been\s+|just\s+|kind\s+of\s+|kinda\s+|pretty\s+much\s+|basically\s+)?((?:one|some)\s+of\s+)?my\s+(?:all[- ]time\s+|absolute\s+|biggest\s+|true\s+)?(favou?rites?|faves?|favs?|top\s+pick|go-to|passion|thing|jam|(?:creative\s+)?outlets?|escape|therapy|happy\s+place|stress\s+relief)\b(?:\s+([\p{L}'-]+(?:\s+[\p{L}'-]+)?))?`),
    build: (m, _rest, clause) => {
      const subject = subjectBefore(clause, m.index);
      if (subject === null) return null;
      const category = m[3]?.toLowerCase();
      const categorised =
        category !== undefined &&
        m[1] === undefined &&
        /^(?:favou?rites?|faves?|favs?)$/i.test(m[2]) &&
        !/^(?:for|in|to|of|and|because|but|since|too|ever|now|thing|part|way|one|lately)\b/.test(category);
      if (categorised) {
        const cat = category.split(/\s+/)[0];
        return keyedFact('favorite', `favorite:${keyPhrase(cat)}`, `favorite ${cat}`, subject, 0.8);
      }
      return preferenceFacts([subject], true, 0.75);
    },
  },
  {
    id: 'likes.verb',
    needs: [['love', 'like', 'enjoy', 'adore', 'prefer']],
    generic: true,
    re: rx(String.raw`\bi\s+(?:(?:really|absolutely|totally|just|also|still|truly|actually|kinda|genuinely|honestly|definitely|do|especially|particularly|simply|seriously|so|always|sure|quite)\s+){0,2}(love|like|enjoy|adore|prefer)\s+`),
    build: (m, rest) => {
      const verb = m[1].toLowerCase();
      const objects = likedObjects(rest, verb === 'prefer' ? PREFER_STOPS : undefined).filter(
        (o) => channelAt(o) === null && !LANGUAGES.has(o.toLowerCase()),
      );
      return preferenceFacts(objects, true, verb === 'love' || verb === 'adore' ? 0.75 : 0.65);
    },
  },
  {
    id: 'likes.fan',
    needs: [['fan', 'lover']],
    generic: true,
    re: rx(String.raw`${IM}\s+(?:also\s+|really\s+)?(?:such\s+)?(?:an?\s+)?(?:(?:big|huge|massive|great|real|total|die-hard|diehard|longtime|long-time|avid)\s+)?(?:fan|lover)\s+of\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(rest), true, 0.7),
  },
  {
    id: 'likes.into',
    needs: [['into', 'keen', 'obsessed', 'crazy', 'hooked']],
    generic: true,
    re: rx(String.raw`(?:${IM}|${IVE}\s+been|${IVE}\s+always\s+been)\s+(?:really\s+|super\s+|so\s+|totally\s+|very\s+|also\s+|big\s+|pretty\s+|kinda\s+)?(?:into|keen\s+on|obsessed\s+with|crazy\s+about|hooked\s+on)\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(rest), true, 0.65),
  },
  {
    id: 'likes.passionate',
    needs: [['passionate']],
    generic: true,
    re: rx(String.raw`${IM}\s+(?:also\s+)?(?:really\s+|so\s+|very\s+|truly\s+|deeply\s+|super\s+)?passionate\s+about\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(rest), true, 0.75),
  },
  {
    id: 'likes.love_for',
    needs: [['love', 'passion', 'soft']],
    generic: true,
    re: rx(String.raw`${IVE}\s+(?:always\s+)?(?:had\s+)?(?:a\s+)?(?:real\s+|deep\s+|great\s+|big\s+|huge\s+)?(?:love|passion|soft\s+spot)\s+for\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(rest), true, 0.7),
  },
  {
    id: 'dislikes.verb',
    needs: [['hate', 'dislike', 'detest', 'loathe', 'despise', 'stand', 'like', 'enjoy', 'love', 'liked']],
    generic: true,
    re: rx(String.raw`\bi\s+(?:(?:really|absolutely|totally|just|also|honestly|truly|kinda|seriously|so|still)\s+){0,2}(hate|dislike|detest|loathe|despise|can'?t\s+stand|cannot\s+stand|don'?t\s+(?:really\s+)?(?:like|enjoy|love)|do\s+not\s+(?:really\s+)?(?:like|enjoy)|never\s+liked)\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(rest), false, 0.7),
  },
  {
    id: 'dislikes.not_fan',
    needs: [['not'], ['fan', 'into']],
    generic: true,
    re: rx(String.raw`${IM}\s+not\s+(?:really\s+|much\s+of\s+|that\s+much\s+of\s+)?(?:an?\s+)?(?:(?:big|huge)\s+)?(?:fan\s+of|into)\s+`),
    build: (_m, rest) => preferenceFacts(likedObjects(rest), false, 0.7),
  },
];
