/**
 * Items a support agent needs whatever the task's words: who the customer is and what they have
 * asked for (profile facts, the customer's stated preferences and requirements) and the ticket
 * references given in their conversations. "Suggest an integration approach" shares no word
 * with "we would rather use the Python SDK", yet an answer that ignores it is wrong; an update
 * on "the SSO issue" needs the ticket id the agent gave, which sits in a line that never says
 * "SSO". Ranking gives such items a small share of the budget before relevance competes
 * (ranking.ts, `selectCandidates`).
 *
 * Statements count only from a support-shaped conversation: lines whose role is a generic
 * customer or agent role (`user: …`, `assistant: …`, the compiler's summaries keep that form).
 * Between named people (a LoCoMo-style chat: `Caroline: …`) "I want" is small talk, not a
 * customer's requirement, and stays with relevance alone.
 */
import { classifyRole } from 'src/compiler/speaker-roles';
import { namedSpeakers } from './speakers';

/** `role: text` at the start of a line; roles are short (a word or two). */
const SPEAKER_LINE = /^([^:\n]{1,40}):\s*(.*)$/;

/**
 * First-person preferences and requirements: "we'd rather", "I prefer", "our team needs",
 * "we want to", "please always …", "we only use …". Closed on purpose: a question ("do you need …?") or a
 * third person ("they want") is not the customer's own requirement.
 */
const PREFERENCE =
  /\b(?:i|we|our(?:\s+[a-z]+){1,2})(?:'d|'ll|\s+(?:would|will|do|does|really|also|still|definitely|strongly|absolutely|only|always|much)){0,2}\s+(?:prefers?|rather|wants?|needs?|requires?|insists?|expects?)\b|\b(?:i|we)(?:'re|\s+are|\s+am)?\s+(?:only|always|never)\s+(?:use|using|work|want)\b|\bplease\s+(?:always|never|only|do not|don't)\b|\b(?:our|my)\s+(?:preference|preferred|requirement)s?\b/i;

/**
 * A ticket, case or incident reference: `OPS-7734`, `JIRA-12`, `ticket #48213`, `case 00123`.
 * Upper-case project keys keep "COVID-19"-like words rare enough to be harmless.
 */
const TICKET =
  /\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b|\b(?:ticket|case|incident|issue|request|reference|ref)\s*(?:number|no\.?|id)?(?:\s+is)?\s*[#:]?\s*[A-Z]{0,6}-?\d{3,}\b/i;

export type StandingReason = 'profile' | 'preference' | 'ticket';

/**
 * Why an item is relevant to any support task, or null. A `profile_fact` is, unless the compiler
 * attributed it to a named person (`speakers`: the role of the message it came from, "Caroline"),
 * by the rule above for statements: in a chat between named people a fact is one of many things
 * said, and half of them are about the other speaker, so it competes on relevance like the turn
 * it came from. On LoCoMo, 121 of each 1,000-token bundle's tokens went to such facts, mostly
 * unrelated to the question; without their standing share evidence recall at 1,000 tokens rose
 * 80.0% -> 80.7% offline (bench/README.md, round 6), the support set unchanged. A fact without a
 * speaker (created by a client, imported) or from a generic role (`user`, `customer`) stands.
 * An episode or summary stands when one of its generic-role lines states a customer preference
 * or carries a ticket reference.
 */
export function standingReason(label: string, text: string, speakers: readonly string[] | null = null): StandingReason | null {
  if (label === 'profile_fact') return namedSpeakers(speakers).length > 0 ? null : 'profile';
  if (label !== 'raw_episode' && label !== 'episode_summary') return null;
  let reason: StandingReason | null = null;
  for (const line of text.split('\n', 50)) {
    const m = SPEAKER_LINE.exec(line);
    if (m === null) continue;
    const speaker = classifyRole(m[1]);
    if (speaker.name !== null || speaker.side === 'system') continue;
    if (TICKET.test(m[2])) return 'ticket';
    if (speaker.side === 'subject' && PREFERENCE.test(m[2])) reason = 'preference';
  }
  return reason;
}
