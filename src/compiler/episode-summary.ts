/**
 * Extractive episode summaries: the first meaningful message as `role: text` (existing
 * clients rely on that opening), followed by the most telling later messages, within a budget.
 */
import { oneLine } from 'src/common/text/one-line';
import { splitSentences, truncateAtWord } from './compiler-text';
import type { Side } from './speaker-roles';

export interface SummaryMessage {
  role: string;
  side: Side;
  content: string;
  /** The compiler found a fact, procedure or outcome in this message. */
  salient: boolean;
}

export interface EpisodeSummary {
  content: string;
  summary: string;
}

const FILLER =
  /^(?:(?:hi|hello|hey|hiya|yo|heya|good\s+(?:morning|afternoon|evening|night)|thanks?|thank\s+you|thx|ty|ok(?:ay)?|k|cool|great|nice|awesome|perfect|sure|yes|yeah|yep|no|nope|bye|goodbye|cheers|got\s+it|sounds\s+good|will\s+do|you\s+too|same\s+here|lol|haha|wow)(?:\s+(?:there|so\s+much|again|a\s+lot|very\s+much|you|all|everyone|team))*[\s!.,?:)(-]*)+$/i;
/** Openers agents send before anything has been said ("Hi! How can I help you today?"). */
const AGENT_OPENER = /\b(?:how\s+(?:can|may)\s+i\s+(?:help|assist)|thank(?:s|\s+you)\s+for\s+(?:contacting|reaching\s+out|getting\s+in\s+touch)|welcome\s+to)\b/i;

/** True for greetings, thanks and agent openers that say nothing about the episode. */
export function isFiller(text: string, side: Side): boolean {
  const flat = oneLine(text);
  if (flat.length === 0 || FILLER.test(flat)) return true;
  return side === 'agent' && AGENT_OPENER.test(flat) && flat.split(' ').length <= 25;
}

const HEAD_CHARS = 240;
const PART_CHARS = 140;

/**
 * Summary of a conversation episode, or null when it has no text at all. Content: the first
 * meaningful message (greetings, thanks and agent openers skipped; the first message when all
 * are filler), then up to two later messages that carry facts or outcomes, the last customer
 * message and the last agent message, joined with " … " within `maxChars`.
 */
export function summariseConversation(messages: SummaryMessage[], maxChars = 400): EpisodeSummary | null {
  const spoken = messages.filter((m) => m.side !== 'system' && oneLine(m.content).length > 0);
  const pool = spoken.length > 0 ? spoken : messages.filter((m) => oneLine(m.content).length > 0);
  if (pool.length === 0) return null;
  const meaningful = pool.filter((m) => !isFiller(m.content, m.side));
  const first = meaningful[0] ?? pool[0];
  let content = `${first.role}: ${truncateAtWord(first.content, Math.min(HEAD_CHARS, maxChars - first.role.length - 2))}`;

  const later = meaningful.slice(meaningful.indexOf(first) + 1);
  const picked = pickHighlights(later);
  for (const m of picked) {
    const part = ` … ${m.role}: ${truncateAtWord(m.content, PART_CHARS)}`;
    if (content.length + part.length > maxChars) break;
    content += part;
  }
  const opening = splitSentences(oneLine(first.content), 1, 400)[0] ?? oneLine(first.content);
  const count = pool.length;
  const summary =
    count > 1
      ? `${count} messages; ${first.role}: ${truncateAtWord(opening, 120)}`
      : `${first.role}: ${truncateAtWord(opening, 140)}`;
  return { content, summary };
}

/** Up to two later messages, by salience then recency, returned in conversation order. */
function pickHighlights(later: SummaryMessage[]): SummaryMessage[] {
  if (later.length === 0) return [];
  const lastSubject = findLast(later, (m) => m.side === 'subject');
  const lastAgent = findLast(later, (m) => m.side === 'agent');
  const scored = later.map((m, i) => ({
    m,
    i,
    score: (m.salient ? 3 : 0) + (m === lastSubject ? 2 : 0) + (m === lastAgent ? 1 : 0) + i / (later.length * 10),
  }));
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i)
    .map((s) => s.m);
}

function findLast<T>(items: T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return items[i];
  return undefined;
}

/** Summary of a non-conversation episode: `label: text`, or null when there is no text. */
export function summariseText(label: string, text: string, maxChars = 400): EpisodeSummary | null {
  const flat = oneLine(text);
  if (flat.length === 0) return null;
  const opening = splitSentences(flat, 1, 400)[0] ?? flat;
  return {
    content: `${label}: ${truncateAtWord(flat, Math.max(20, maxChars - label.length - 2))}`,
    summary: `${label}: ${truncateAtWord(opening, 140)}`,
  };
}
