/**
 * Flattening of free-form episode payloads into text, for search, ranking and compilation.
 * Payloads are arbitrary client JSON: nothing here may throw, and every walk is bounded.
 */
export interface ConversationMessage {
  role: string;
  content: string;
}

/** More messages than this in one episode are ignored: one episode is one conversation turn set. */
const MAX_MESSAGES = 500;

/**
 * The messages of a conversation payload (`payload.messages[]` with string `role` and `content`,
 * the shape the contract names). Content given as a list of parts (`[{type: "text", text}]`,
 * as chat-completion clients send it) is joined with newlines; other items are skipped.
 */
export function conversationMessages(payload: unknown): ConversationMessage[] {
  if (!isRecord(payload) || !Array.isArray(payload.messages)) return [];
  const out: ConversationMessage[] = [];
  for (const item of payload.messages.slice(0, MAX_MESSAGES)) {
    if (!isRecord(item) || typeof item.role !== 'string') continue;
    const content = messageContent(item.content);
    if (content !== null) out.push({ role: item.role, content });
  }
  return out;
}

function messageContent(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts = content
    .slice(0, MAX_MESSAGES)
    .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : null))
    .filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join('\n') : null;
}

/** Field names whose string values are prose worth searching; ids, urls and enums are not. */
const TEXT_FIELDS = new Set([
  'text', 'content', 'body', 'message', 'summary', 'title', 'description', 'question', 'answer',
  'notes', 'note', 'subject', 'comment', 'comments', 'transcript', 'query', 'response', 'reply',
  'details', 'feedback', 'review', 'reason', 'resolution', 'caption', 'prompt', 'completion',
]);

const MAX_DEPTH = 6;
const MAX_NODES = 2000;

/**
 * Searchable text of an episode, at most `maxChars` characters. A conversation gives one line
 * per message (`role: content`, inner whitespace collapsed); any other payload gives the string
 * values of text-like fields at any depth (up to 6 levels, 2000 nodes), one per field, with
 * their own line breaks kept. A bare string payload is its own text.
 */
export function episodeText(payload: unknown, maxChars = 8000): string {
  const limit = Math.max(0, Math.floor(maxChars));
  const messages = conversationMessages(payload);
  const lines =
    messages.length > 0
      ? messages.map((m) => `${m.role}: ${collapse(m.content, limit)}`).filter((line) => !line.endsWith(': '))
      : textFields(payload, limit);
  return cutChars(lines.join('\n'), limit);
}

function textFields(payload: unknown, limit: number): string[] {
  const lines: string[] = [];
  let budget = limit;
  let nodes = 0;
  const exhausted = (): boolean => budget <= 0 || nodes >= MAX_NODES;
  const visit = (value: unknown, isText: boolean, depth: number): void => {
    if (exhausted()) return;
    nodes++;
    if (typeof value === 'string') {
      if (!isText) return;
      const line = collapse(value, budget, true);
      if (line.length === 0) return;
      lines.push(line);
      budget -= line.length + 1;
    } else if (Array.isArray(value)) {
      if (depth >= MAX_DEPTH) return;
      for (const item of value) {
        if (exhausted()) return;
        visit(item, isText, depth + 1);
      }
    } else if (isRecord(value)) {
      if (depth >= MAX_DEPTH) return;
      for (const key in value) {
        if (exhausted()) return;
        if (Object.prototype.hasOwnProperty.call(value, key)) visit(value[key], TEXT_FIELDS.has(key.toLowerCase()), depth + 1);
      }
    }
  };
  visit(payload, true, 0);
  return lines;
}

/**
 * Whitespace-collapsed text, cut first so that a huge string costs no more than `limit`.
 * Documents keep their line breaks (a numbered list stays a list); chat lines may not have any.
 */
function collapse(text: string, limit: number, keepLines = false): string {
  const cut = cutChars(text, limit * 2 + 64);
  return (keepLines ? cut.replace(/[^\S\n]+/g, ' ').replace(/ ?\n[\s]*/g, '\n') : cut.replace(/\s+/g, ' ')).trim();
}

/** Cuts to `max` UTF-16 units without leaving half of a surrogate pair (an emoji) at the end. */
function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
