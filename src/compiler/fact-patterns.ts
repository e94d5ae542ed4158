/**
 * Profile-fact extraction from single sentences. Precision over recall: a wrong fact sits at
 * the top of every context bundle ("About this user"), while a missed one is still found in
 * the episode summary. So rules match first-person statements only, skip questions,
 * conditionals and reported doubts, and read values with closed boundaries.
 */
import { ClauseCues, CueCheck, FactMatch, FactRule, clauseCues, cueCheck } from './fact-rule';
import { orgName, emailIn, phoneIn, planName, properName } from './fact-values';
import { AGENT_RULES, PROFILE_RULES } from './profile-rules';
import { PERSONAL_RULES } from './personal-rules';
import { REQUIREMENT_RULES } from './requirement-rules';
import { displayName } from './compiler-text';

export type { FactMatch } from './fact-rule';

interface CompiledRule {
  rule: FactRule;
  order: number;
  applies: CueCheck;
}

/**
 * Rules indexed by the words of their first cue group, so a clause only meets the few rules
 * its words can trigger instead of all of them.
 */
class RuleIndex {
  private readonly byWord = new Map<string, CompiledRule[]>();
  private readonly unindexed: CompiledRule[] = [];

  constructor(rules: FactRule[]) {
    rules.forEach((rule, order) => {
      const compiled = { rule, order, applies: cueCheck(rule) };
      const first = rule.needs?.[0];
      if (first === undefined || first.some((cue) => !/^\p{L}+$/u.test(cue))) {
        this.unindexed.push(compiled);
        return;
      }
      for (const word of new Set(first)) {
        const list = this.byWord.get(word);
        if (list === undefined) this.byWord.set(word, [compiled]);
        else list.push(compiled);
      }
    });
  }

  candidates(cues: ClauseCues): CompiledRule[] {
    const found = new Set<CompiledRule>(this.unindexed);
    for (const word of cues.words) for (const rule of this.byWord.get(word) ?? []) found.add(rule);
    return [...found].filter((r) => r.applies(cues)).sort((a, b) => a.order - b.order);
  }
}

const SUBJECT_RULES = new RuleIndex([...PROFILE_RULES, ...REQUIREMENT_RULES, ...PERSONAL_RULES]);
const CONFIRMATION_RULES = new RuleIndex(AGENT_RULES);

/** A rule firing more often than this in one clause is matching noise. */
const MAX_MATCHES_PER_RULE = 4;

const QUESTION_START =
  /^(?:what|who|whom|whose|where|when|why|how|which|do|does|did|is|are|was|were|am|can|could|would|will|should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|can't|couldn't|shouldn't|any|anything|ever)\b/i;
/** "Can you update my email to …?" asks for a change: its content is a statement about the asker. */
const REQUEST_START = /^(?:(?:hi|hey|hello|ok(?:ay)?|also|and)[,!]?\s+)*(?:can|could|would|will)\s+you\s+(?:please\s+)?(?!tell\b|remind\b|confirm\b|check\b)/i;

/**
 * The parts of a sentence that state something. A question keeps only its leading statement
 * parts ("I'm on the Pro plan, can I upgrade?" keeps "I'm on the Pro plan").
 */
export function statementParts(sentence: string): string[] {
  const trimmed = sentence.trim();
  if (REQUEST_START.test(trimmed)) return [trimmed];
  const isQuestion = trimmed.endsWith('?') || QUESTION_START.test(trimmed);
  if (!isQuestion) return [trimmed];
  const parts = trimmed.split(/\s*[,;]\s+|\s+-\s+/);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    if (QUESTION_START.test(parts[i]) || (last && trimmed.endsWith('?'))) break;
    out.push(parts[i]);
  }
  return out;
}

/**
 * Words before a trigger that make it hypothetical, wished, doubted, asked about or someone
 * else's words ("she said I'm on …"); "as I said" is the speaker's own and does not block.
 */
const BLOCKING_CONTEXT = /\b(?:if|unless|whether|wish|wonder(?:ing)?|imagine|suppose|pretend|not\s+sure|don'?t\s+think|doubt|asked|asking|(?<!\bi\s)said|says|told\s+me|pretending|hypothetically|what\s+if)\b/i;
const HEDGES = /\b(?:i\s+think|i\s+believe|probably|maybe|perhaps|i\s+guess|pretty\s+sure|might|i\s+suppose)\b/i;

function blocked(clause: string, index: number): boolean {
  const before = clause.slice(0, index);
  const cut = Math.max(before.lastIndexOf(','), before.lastIndexOf(';'), before.lastIndexOf(' but '));
  return BLOCKING_CONTEXT.test(before.slice(cut + 1)) || before.slice(cut + 1).includes('"');
}

/** "a job I enjoy", "the thing I love most": the liking belongs to a noun, not to the speaker at large. */
const RELATIVE_ANTECEDENT =
  /(?:\b(?:a|an|the|some|any|every|this|that|my|your|one)\s+[\p{L}-]+|\b(?:something|anything|everything|nothing|someone|anyone|everyone|all|stuff|things?))\s+$/iu;

interface Hit {
  fact: FactMatch;
  start: number;
  end: number;
  generic: boolean;
}

function runRules(rules: RuleIndex, clause: string): Hit[] {
  const hits: Hit[] = [];
  for (const { rule } of rules.candidates(clauseCues(clause))) {
    rule.re.lastIndex = 0;
    for (let n = 0; n < MAX_MATCHES_PER_RULE; n++) {
      const m = rule.re.exec(clause);
      if (m === null) break;
      if (m[0].length === 0) rule.re.lastIndex++;
      if (blocked(clause, m.index)) continue;
      if (rule.generic === true && RELATIVE_ANTECEDENT.test(clause.slice(0, m.index))) continue;
      const built = rule.build(m, clause.slice(m.index + m[0].length), clause);
      const facts = built === null ? [] : Array.isArray(built) ? built : [built];
      const hedged = HEDGES.test(clause.slice(0, m.index));
      for (const fact of facts) {
        if (fact.value.trim().length === 0) continue;
        const scored = hedged ? { ...fact, confidence: round2(fact.confidence * 0.8) } : fact;
        hits.push({ fact: scored, start: m.index, end: m.index + m[0].length, generic: rule.generic === true });
      }
    }
  }
  return hits;
}

/**
 * Facts in the order said. Broad rules give way to a specific rule whose trigger covers theirs
 * ("in my spare time I like to paint" is a hobby, not also a liking), and a fact refined in the
 * same sentence ("Oscar, my guinea pig" names the pet) drops its unrefined twin.
 */
function resolveHits(hits: Hit[]): Hit[] {
  const specific = hits.filter((h) => !h.generic);
  const kept = hits
    .filter((h) => !h.generic || !specific.some((s) => h.start >= s.start && h.start < s.end))
    .sort((a, b) => a.start - b.start);
  const seen = new Set<string>();
  const out: Hit[] = [];
  for (const hit of kept) {
    const id = `${hit.fact.key}\u0000${hit.fact.value.toLowerCase()}`;
    if (seen.has(id)) continue;
    if (kept.some((other) => other.fact.key.startsWith(`${hit.fact.key}:`))) continue;
    seen.add(id);
    out.push(hit);
  }
  return out;
}

/** A fact with the clause that states it: the memory's content. */
export interface StatedFact extends FactMatch {
  clause: string;
}

const FIRST_PERSON = String.raw`(?:i|i'm|im|i've|ive|i'd|i'll|my|we|we're|we've|our)\b`;
/**
 * Where a new first-person clause starts: after `;`, or after a comma or a conjunction that
 * is followed by I/my/we ("My name is Juno Marsh and I live in Tromso").
 */
const CLAUSE_BREAK = new RegExp(String.raw`\s*;\s*|,?\s+(?:and|but|while|whereas|plus|so)\s+(?=${FIRST_PERSON})|,\s+(?=${FIRST_PERSON})`, 'giu');

/**
 * One fact per clause (compat.md): a fact's content is the clause it was said in, from the
 * clause holding its trigger through the one holding its value (a value may run on: "I like
 * tea, and my mum's scones"). A one-clause part keeps its text whole.
 */
function clauseOf(part: string, hit: Hit): string {
  const starts = [0];
  CLAUSE_BREAK.lastIndex = 0;
  for (let m = CLAUSE_BREAK.exec(part); m !== null; m = CLAUSE_BREAK.exec(part)) {
    if (m[0].length === 0) {
      CLAUSE_BREAK.lastIndex++;
      continue;
    }
    if (m.index > 0 && m.index + m[0].length < part.length) starts.push(m.index + m[0].length);
  }
  if (starts.length === 1) return part;
  const valueAt = part.toLowerCase().indexOf(hit.fact.value.toLowerCase(), hit.start);
  const last = valueAt < 0 ? hit.start : valueAt + hit.fact.value.length - 1;
  const first = starts.filter((at) => at <= hit.start).at(-1) ?? 0;
  const next = starts.find((at) => at > last);
  const end = next === undefined ? part.length : breakBefore(part, next);
  const clause = part.slice(first, end).trim();
  return clause.charAt(0).toUpperCase() + clause.slice(1);
}

/** Where the clause ending before `nextStart` ends: before its separator (", and ", "; "). */
function breakBefore(part: string, nextStart: number): number {
  CLAUSE_BREAK.lastIndex = 0;
  for (let m = CLAUSE_BREAK.exec(part); m !== null; m = CLAUSE_BREAK.exec(part)) {
    if (m.index + m[0].length === nextStart) return m.index;
    if (m[0].length === 0) CLAUSE_BREAK.lastIndex++;
  }
  return nextStart;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Facts the speaker states about themselves in one (already normalised) sentence, each with its clause. */
export function extractFacts(sentence: string): StatedFact[] {
  const out: StatedFact[] = [];
  for (const part of statementParts(sentence)) {
    for (const hit of resolveHits(runRules(SUBJECT_RULES, part))) out.push({ ...hit.fact, clause: clauseOf(part, hit) });
  }
  return out;
}

/** Facts an agent confirms it changed on the customer's account, from one agent sentence. */
export function extractAgentFacts(sentence: string): FactMatch[] {
  return resolveHits(runRules(CONFIRMATION_RULES, sentence.trim())).map((h) => h.fact);
}

const ANSWER_PREFIX = /^(?:(?:sure|yes|yeah|yep|ok(?:ay)?|of\s+course|absolutely)[,!.]?\s+)?(?:it'?s\s+|its\s+|i'?m\s+|im\s+|this\s+is\s+|my\s+name\s+is\s+|name'?s\s+|that'?s\s+|that\s+would\s+be\s+|we'?re\s+(?:with|at|on)\s+|i'?m\s+(?:with|at|on)\s+)?/i;

/**
 * A fact given as a short answer to an agent's question ("What's your email?" → "juno@x.io").
 * Only short answers count: a long reply to a question is a conversation, not a field value.
 */
export function extractAnswerFact(question: string, answer: string): FactMatch | null {
  const reply = answer.trim();
  const wordCount = reply.split(/\s+/).length;
  if (wordCount > 12 || !/\?/.test(question)) return null;
  const q = question.toLowerCase();
  if (/\be-?mail\b/.test(q)) {
    const email = emailIn(reply);
    return email === null ? null : { attribute: 'email', key: 'profile:email', label: 'email', value: email, confidence: 0.85 };
  }
  if (/\b(?:phone|number\s+to\s+reach|call\s+you\s+(?:at|on)|mobile|cell)\b/.test(q)) {
    const phone = phoneIn(reply);
    return phone === null ? null : { attribute: 'phone', key: 'profile:phone', label: 'phone', value: phone, confidence: 0.8 };
  }
  const body = reply.replace(ANSWER_PREFIX, '');
  if (/\b(?:account|customer|member)\s*(?:id|number|no|#)/.test(q)) {
    const id = /\b([A-Za-z0-9][A-Za-z0-9-]{2,39})\b/.exec(body);
    return id && /\d/.test(id[1]) ? { attribute: 'account_id', key: 'profile:account_id', label: 'account id', value: id[1], confidence: 0.8 } : null;
  }
  if (wordCount > 6) return null;
  if (/\b(?:your|the)\s+(?:full\s+|first\s+)?name\b|\bwho\s+(?:am\s+i|is\s+this)\s+(?:speaking|talking|chatting)\b|\bwhat\s+should\s+i\s+call\s+you\b/.test(q)) {
    const name = properName(body, 4, true);
    return name === null ? null : { attribute: 'name', key: 'profile:name', label: 'name', value: displayName(name), confidence: 0.8 };
  }
  if (/\b(?:which|what)\b.*\b(?:company|organi[sz]ation|employer)\b|\bwho\s+do\s+you\s+work\s+for\b/.test(q)) {
    const org = orgName(body, false);
    return org === null ? null : { attribute: 'company', key: 'profile:company', label: 'company', value: org, confidence: 0.7 };
  }
  if (/\b(?:which|what)\b.*\b(?:plan|tier|subscription)\b/.test(q)) {
    const plan = planName(body.replace(/^(?:on|using)\s+/i, ''));
    return plan === null ? null : { attribute: 'plan', key: 'profile:plan', label: 'plan', value: plan, confidence: 0.75 };
  }
  return null;
}
