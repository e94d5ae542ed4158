/**
 * The deterministic compiler (COMPILER_TYPE=heuristic): turns a subject's new episodes into
 * profile facts, procedures and one summary per episode, then resolves them against the
 * subject's active memories (see memory-plan.ts for overlap and duplicates).
 *
 * Pure and bounded: no clock, no randomness, no I/O; any JSON payload is accepted and the
 * work per episode is capped, so one odd episode can neither fail nor stall a compile job.
 */
import { analyze } from 'src/common/text/terms';
import { conversationMessages, episodeText } from 'src/compiler/episode-text';
import type { CompilePlan, CompilerEpisode, ExistingMemory, MemoryCompiler, MemoryDraft } from './compiler.types';
import type { MemoryKind } from './memory-kinds';
import { oneLine } from 'src/common/text/one-line';
import { cutChars, keyPhrase, normaliseText, splitSentences, truncateAtWord } from './compiler-text';
import { summariseConversation, summariseText } from './episode-summary';
import { extractAgentFacts, extractAnswerFact, extractFacts } from './fact-patterns';
import type { FactMatch } from './fact-patterns';
import { planMemories } from './memory-plan';
import {
  confirmsFix,
  extractInstructions,
  findStepLists,
  howToTopic,
  inlineSteps,
  renderSteps,
  reportsFailure,
  suggestion,
  toDoSteps,
} from './procedure-patterns';
import type { ProcedureMatch } from './procedure-patterns';
import { classifyRole, sideOfSource } from './speaker-roles';
import type { Side, Speaker } from './speaker-roles';

export const HEURISTIC_COMPILER_VERSION = 'heuristic-1';

/** Bounds per episode: a pasted log or a 10 MB payload costs the same as a long chat. */
const MAX_MESSAGES = 200;
const MAX_MESSAGE_CHARS = 4000;
const MAX_EPISODE_CHARS = 40_000;
const MAX_SENTENCES_PER_MESSAGE = 60;
const MAX_SENTENCES_PER_EPISODE = 400;
const SUMMARY_CHARS = 400;

export function compileHeuristic(episodes: CompilerEpisode[], existing: ExistingMemory[]): CompilePlan {
  const candidates: MemoryDraft[] = [];
  const lastTurn = new Map<string, OneTurn>();
  for (const episode of episodes) {
    const raw = messagesOf(episode.payload);
    const turn = oneTurnOf(raw);
    const previous = episode.session_id === null ? undefined : lastTurn.get(episode.session_id);
    candidates.push(...episodeCandidates(episode, raw, replyContext(turn, previous)));
    if (episode.session_id !== null) {
      if (turn === null) lastTurn.delete(episode.session_id);
      else lastTurn.set(episode.session_id, turn);
    }
  }
  return planMemories(existing, candidates);
}

/** An episode that is one chat message (a client logging each turn as its own episode). */
interface OneTurn {
  role: string;
  text: string;
}

function oneTurnOf(raw: { role: string; content: string }[]): OneTurn | null {
  const messages = raw.filter((m) => oneLine(m.content).length > 0);
  if (messages.length !== 1) return null;
  return { role: oneLine(messages[0].role).slice(0, 64), text: normaliseText(cutChars(messages[0].content, MAX_MESSAGE_CHARS)) };
}

/** A reply this short leans on the question it answers ("To de-stress and clear my mind."). */
const SHORT_REPLY_WORDS = 15;
/** A longer question is itself a topic statement more than a prompt; quoting it costs too much. */
const MAX_QUOTED_QUESTION_CHARS = 80;

/**
 * The question a one-message episode answers, when the session's previous episode is one message
 * from another speaker that asks it and the reply is too short to stand alone: that reply's
 * summary then says what was asked (`Caroline (asked "What got you into running?"): To de-stress…`),
 * so it can be found by the words of the question and read without the turn before it. Counted
 * in retrieval words (stop words and chat filler do not count).
 */
function replyContext(turn: OneTurn | null, previous: OneTurn | undefined): string | null {
  if (turn === null || previous === undefined || previous.role === turn.role) return null;
  if (analyze(turn.text).length > SHORT_REPLY_WORDS) return null;
  const questions = splitSentences(previous.text, MAX_SENTENCES_PER_MESSAGE).filter((s) => /\?["')\]]*$/.test(s));
  const question = questions[questions.length - 1];
  if (question === undefined || question.length > MAX_QUOTED_QUESTION_CHARS) return null;
  return question;
}

interface Message {
  role: string;
  speaker: Speaker;
  text: string;
  sentences: string[];
  salient: boolean;
}

/** Everything one episode yields, in the order said, its summary last. */
function episodeCandidates(episode: CompilerEpisode, raw: { role: string; content: string }[], askedBefore: string | null): MemoryDraft[] {
  return raw.length > 0 ? conversationCandidates(episode, raw, askedBefore) : documentCandidates(episode);
}

/** Conversation messages; a payload that is itself one message (`{role, content}`) counts too. */
function messagesOf(payload: unknown): { role: string; content: string }[] {
  const messages = conversationMessages(payload);
  if (messages.length > 0) return messages;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const { role, content } = payload as Record<string, unknown>;
    if (typeof role === 'string' && typeof content === 'string') return [{ role, content }];
  }
  return [];
}

function conversationCandidates(episode: CompilerEpisode, raw: { role: string; content: string }[], askedBefore: string | null): MemoryDraft[] {
  const messages = boundMessages(raw);
  const out: MemoryDraft[] = [];
  const fixes = new FixTracker();
  const subject = subjectOf(messages);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const previous = messages[i - 1];
    const { side } = message.speaker;
    if (side === 'system') continue;
    const before = out.length;
    if (side === 'subject') {
      out.push(...subjectFacts(episode, message, previous));
      out.push(...instructionDrafts(episode, message));
    } else {
      for (const sentence of message.sentences) {
        out.push(...extractAgentFacts(sentence).map((f) => confirmedFactDraft(episode, message, subject, sentence, f)));
      }
    }
    const howTos = howToDrafts(episode, message, previous);
    out.push(...howTos);
    if (side === 'agent') fixes.offer(message, howTos);
    else out.push(...fixes.respond(episode, message));
    message.salient = out.length > before;
  }
  const summary = summariseConversation(
    messages.map((m) => ({ role: m.role, side: m.speaker.side, content: m.text, salient: m.salient })),
    SUMMARY_CHARS,
  );
  if (summary !== null) {
    const speaker = messages.find((m) => m.speaker.side !== 'system' && oneLine(m.text).length > 0);
    const content =
      askedBefore !== null && speaker !== undefined && summary.content.startsWith(`${speaker.role}: `)
        ? `${speaker.role} (asked "${askedBefore}"): ${summary.content.slice(speaker.role.length + 2)}`
        : summary.content;
    out.push(
      draft(episode, 'episode_summary', content, summary.summary, 0.7, null, {
        message_count: messages.length,
        roles: [...new Set(messages.map((m) => m.role))].slice(0, 10),
        episode_type: episode.type,
      }),
    );
  }
  return out;
}

function boundMessages(raw: { role: string; content: string }[]): Message[] {
  let chars = 0;
  let sentences = 0;
  const out: Message[] = [];
  for (const m of raw.slice(0, MAX_MESSAGES)) {
    if (chars >= MAX_EPISODE_CHARS) break;
    const text = normaliseText(cutChars(m.content, Math.min(MAX_MESSAGE_CHARS, MAX_EPISODE_CHARS - chars)));
    chars += text.length;
    const room = Math.max(0, Math.min(MAX_SENTENCES_PER_MESSAGE, MAX_SENTENCES_PER_EPISODE - sentences));
    const split = room > 0 ? splitSentences(text, room) : [];
    sentences += split.length;
    const role = oneLine(m.role).slice(0, 64) || 'unknown';
    out.push({ role, speaker: classifyRole(role), text, sentences: split, salient: false });
  }
  return out;
}

/**
 * The subject an agent's confirmation is about: the named customer when the chat has exactly
 * one named subject speaker, else the generic subject.
 */
function subjectOf(messages: Message[]): Speaker {
  const named = new Map<string, Speaker>();
  for (const m of messages) if (m.speaker.side === 'subject' && m.speaker.slug !== null) named.set(m.speaker.slug, m.speaker);
  return named.size === 1 ? [...named.values()][0] : { side: 'subject', name: null, slug: null };
}

function subjectFacts(episode: CompilerEpisode, message: Message, previous: Message | undefined): MemoryDraft[] {
  const out: MemoryDraft[] = [];
  const keys = new Set<string>();
  for (const sentence of message.sentences) {
    for (const fact of extractFacts(sentence)) {
      keys.add(fact.key);
      out.push(factDraft(episode, message, fact.clause, fact));
    }
  }
  // "What's your email?" → "juno@x.io": the answer alone is the fact.
  if (previous?.speaker.side === 'agent') {
    const question = previous.sentences[previous.sentences.length - 1] ?? '';
    const answer = extractAnswerFact(question, message.text);
    if (answer !== null && !keys.has(answer.key)) out.push(factDraft(episode, message, oneLine(message.text), answer));
  }
  return out;
}

function instructionDrafts(episode: CompilerEpisode, message: Message): MemoryDraft[] {
  const out: MemoryDraft[] = [];
  for (const sentence of message.sentences) {
    for (const instruction of extractInstructions(sentence)) out.push(procedureDraft(episode, message, instruction));
  }
  return out;
}

/** Step lists and one-sentence how-tos in a message, from either side. */
function howToDrafts(episode: CompilerEpisode, message: Message, previous: Message | undefined): MemoryDraft[] {
  const out: MemoryDraft[] = [];
  const askedTopic = previous !== undefined && previous.speaker.side !== message.speaker.side ? howToTopic(lastQuestion(previous)) : null;
  for (const list of findStepLists(message.text)) {
    const introTopic = list.intro === null ? null : howToTopic(list.intro);
    const topic = introTopic ?? askedTopic;
    const introHeading = list.intro !== null && /:\s*$/.test(list.intro) ? list.intro : null;
    // "Here is how:" names no task; the question it answers does.
    const heading = introTopic === null && askedTopic !== null ? `How to ${askedTopic}:` : (introHeading ?? (topic === null ? null : `How to ${topic}:`));
    out.push(procedureDraft(episode, message, stepsProcedure(heading, list.steps, topic, 0.8)));
  }
  if (out.length > 0) return out;
  for (const sentence of message.sentences) {
    const toDo = toDoSteps(sentence);
    if (toDo !== null && toDo.steps.length > 0) {
      out.push(procedureDraft(episode, message, stepsProcedure(`How to ${toDo.topic}:`, toDo.steps, toDo.topic, 0.7)));
      continue;
    }
    const steps = inlineSteps(sentence);
    if (steps !== null) {
      const topic = askedTopic;
      out.push(procedureDraft(episode, message, stepsProcedure(topic === null ? null : `How to ${topic}:`, steps, topic, 0.7)));
    }
  }
  return out;
}

function lastQuestion(message: Message): string {
  for (let i = message.sentences.length - 1; i >= 0; i--) if (message.sentences[i].includes('?')) return message.sentences[i];
  return '';
}

function stepsProcedure(heading: string | null, steps: string[], topic: string | null, confidence: number): ProcedureMatch {
  const key = topic === null ? '' : keyPhrase(topic);
  const count = steps.length === 1 ? '1 step' : `${steps.length} steps`;
  return {
    content: renderSteps(heading, steps),
    summary: topic !== null ? `how to ${truncateAtWord(topic, 100)} (${count})` : `${count}: ${truncateAtWord(steps[0], 100)}`,
    key: key.length > 0 ? `procedure:${key}` : null,
    confidence,
    metadata: { procedure_type: 'steps', step_count: steps.length, ...(topic === null ? {} : { topic }) },
  };
}

const PROBLEM =
  /\b(?:can'?t|cannot|won'?t|doesn'?t|isn'?t|aren'?t|not\s+(?:working|loading|showing|connecting|syncing|receiving|able|sending|updating)|unable|error|issue|problem|broken|fail(?:s|ed|ing|ure)?|keeps?\s+\w+ing|stuck|crash(?:es|ed|ing)?|wrong|missing|charged\s+twice|locked\s+out|bug|glitch|slow)\b/i;

/**
 * Troubleshooting that worked: the agent's suggestions since the customer last reported a
 * problem, kept when the customer then confirms the fix ("That worked!"). A failure report
 * drops them, since those steps did not help.
 */
class FixTracker {
  private issue: string | null = null;
  private steps: string[] = [];
  private lists: MemoryDraft[] = [];
  private agent: Message | null = null;

  offer(message: Message, howTos: MemoryDraft[]): void {
    this.agent = message;
    if (howTos.length > 0) this.lists.push(...howTos);
    for (const sentence of message.sentences) {
      const step = suggestion(sentence);
      if (step !== null && this.steps.length < 6) this.steps.push(step);
    }
  }

  respond(episode: CompilerEpisode, message: Message): MemoryDraft[] {
    const problem = message.sentences.find((s) => PROBLEM.test(s) && !confirmsFix(s));
    if (confirmsFix(message.text) && this.agent !== null) {
      const out = this.resolved(episode);
      this.reset();
      return out;
    }
    if (reportsFailure(message.text) || problem !== undefined) {
      this.steps = [];
      this.lists = [];
    }
    if (problem !== undefined && this.issue === null) this.issue = truncateAtWord(problem, 120);
    if (this.issue === null && message.sentences.length > 0 && message.sentences.join(' ').split(' ').length >= 4) {
      this.issue = truncateAtWord(message.sentences[0], 120);
    }
    return [];
  }

  private resolved(episode: CompilerEpisode): MemoryDraft[] {
    const agent = this.agent as Message;
    if (this.lists.length > 0) {
      // The confirmed steps are already a how-to; mark it as proven rather than repeat it.
      for (const list of this.lists) {
        list.confidence = 0.9;
        list.metadata.outcome = 'worked';
        if (this.issue !== null) list.metadata.issue = this.issue;
      }
      return [];
    }
    if (this.steps.length === 0) return [];
    const issue = this.issue ?? 'the reported problem';
    const procedure: ProcedureMatch = {
      content: renderSteps(`Fix that worked for "${issue}":`, this.steps),
      summary: `fix: ${truncateAtWord(issue, 100)}`,
      key: null,
      confidence: 0.85,
      metadata: { procedure_type: 'fix', outcome: 'worked', issue, step_count: this.steps.length },
    };
    return [procedureDraft(episode, agent, procedure)];
  }

  private reset(): void {
    this.issue = null;
    this.steps = [];
    this.lists = [];
    this.agent = null;
  }
}

/** Episodes that are not chats: facts and procedures from their text, and a summary. */
function documentCandidates(episode: CompilerEpisode): MemoryDraft[] {
  const text = normaliseText(episodeText(episode.payload, 8000));
  const side: Side = sideOfSource(episode.source);
  const label = oneLine(episode.type).slice(0, 64) || 'episode';
  const message: Message = {
    role: oneLine(episode.source).slice(0, 64) || 'unknown',
    speaker: { side, name: null, slug: null },
    text,
    sentences: splitSentences(text, MAX_SENTENCES_PER_EPISODE),
    salient: false,
  };
  const out: MemoryDraft[] = [];
  if (side === 'subject') {
    for (const sentence of message.sentences) out.push(...extractFacts(sentence).map((f) => factDraft(episode, message, f.clause, f)));
    out.push(...instructionDrafts(episode, message));
  }
  out.push(...howToDrafts(episode, message, undefined));
  const summary = summariseText(label, text.length > 0 ? text : scalarText(episode.payload), SUMMARY_CHARS);
  if (summary !== null) {
    out.push(draft(episode, 'episode_summary', summary.content, summary.summary, 0.6, null, { episode_type: episode.type, source: episode.source }));
  }
  return out;
}

/** "status=shipped, order_id=123" for structured events that carry no prose. */
function scalarText(payload: unknown): string {
  if (typeof payload !== 'object' || payload === null) {
    return typeof payload === 'number' || typeof payload === 'boolean' ? String(payload) : '';
  }
  const parts: string[] = [];
  for (const [key, value] of Object.entries(payload).slice(0, 20)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      parts.push(`${key}=${cutChars(String(value), 80)}`);
    }
  }
  return parts.join(', ');
}

/** `statement`: the customer's own words that state the fact (its clause, or a short answer). */
function factDraft(episode: CompilerEpisode, message: Message, statement: string, fact: FactMatch): MemoryDraft {
  const { name, slug } = message.speaker;
  return draft(
    episode,
    'profile_fact',
    name === null ? statement : `${name}: ${statement}`,
    name === null ? `${fact.label}: ${fact.value}` : `${name} — ${fact.label}: ${fact.value}`,
    fact.confidence,
    slug === null ? fact.key : `${fact.key}@${slug}`,
    { attribute: fact.attribute, value: fact.value, speaker: message.role },
  );
}

/** A fact the agent confirmed: the agent's words, labelled as theirs, about the subject. */
function confirmedFactDraft(episode: CompilerEpisode, agent: Message, subject: Speaker, sentence: string, fact: FactMatch): MemoryDraft {
  return draft(
    episode,
    'profile_fact',
    `${agent.role}: ${sentence}`,
    subject.name === null ? `${fact.label}: ${fact.value}` : `${subject.name} — ${fact.label}: ${fact.value}`,
    fact.confidence,
    subject.slug === null ? fact.key : `${fact.key}@${subject.slug}`,
    { attribute: fact.attribute, value: fact.value, speaker: agent.role, confirmed_by: 'agent' },
  );
}

function procedureDraft(episode: CompilerEpisode, message: Message, procedure: ProcedureMatch): MemoryDraft {
  const { name, slug } = message.speaker;
  const key = procedure.key === null || slug === null ? procedure.key : `${procedure.key}@${slug}`;
  return draft(
    episode,
    'procedure',
    name === null ? procedure.content : `${name}: ${procedure.content}`,
    name === null ? procedure.summary : `${name} — ${procedure.summary}`,
    procedure.confidence,
    key,
    { ...procedure.metadata, speaker: message.role },
  );
}

function draft(
  episode: CompilerEpisode,
  kind: MemoryKind,
  content: string,
  summary: string,
  confidence: number,
  attributeKey: string | null,
  metadata: Record<string, unknown>,
): MemoryDraft {
  return {
    kind,
    content,
    summary,
    confidence,
    source_episode_ids: [episode.id],
    attribute_key: attributeKey,
    valid_from: new Date(episode.created_at.getTime()),
    valid_to: null,
    status: 'active',
    metadata: {
      compiler: HEURISTIC_COMPILER_VERSION,
      ...metadata,
      ...(episode.session_id === null ? {} : { session_id: episode.session_id }),
    },
  };
}

/** The heuristic compiler behind the pipeline's MemoryCompiler token (COMPILER_TYPE=heuristic). */
export class HeuristicCompiler implements MemoryCompiler {
  readonly name = HEURISTIC_COMPILER_VERSION;
  readonly remote = false;

  async compile(episodes: CompilerEpisode[], existing: ExistingMemory[]): Promise<CompilePlan> {
    return compileHeuristic(episodes, existing);
  }
}
