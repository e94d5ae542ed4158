/**
 * Offline core of the context-quality benchmark: LoCoMo loading, the two baselines and the
 * recall metrics. Everything goes through the service's own token counter and analyzer, so the
 * baselines and the service are measured with the same ruler.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0 — see /work/shared/data/README.md.
 */
import { readFileSync } from 'node:fs';
import { countTokens } from 'src/common/text/tokenizer';
import { analyze } from 'src/common/text/terms';
import { bm25Scores } from 'src/modules/context/relevance';

/** LoCoMo categories scored here; 5 (adversarial, unanswerable) has no evidence to recall. */
export const CATEGORIES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' } as const;
export type Category = keyof typeof CATEGORIES;

export interface Turn {
  /** LoCoMo `dia_id`, e.g. `D3:12` (session 3, turn 12). */
  id: string;
  session: number;
  speaker: string;
  /** Turn text, with the image caption when the turn shared a photo. */
  text: string;
  /** Image caption alone, when the turn shared a photo. */
  caption: string | null;
  /** The session's date as LoCoMo writes it, e.g. `1:56 pm on 8 May, 2023`. */
  date: string;
  created_at: Date;
}

export interface Question {
  question: string;
  answer: string;
  category: Category;
  /** Evidence turn ids, cleaned: split when several share a string, dropped when unknown. */
  evidence: string[];
}

export interface Conversation {
  sampleId: string;
  turns: Turn[];
  questions: Question[];
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; answer?: unknown; evidence?: string[]; category: number }[];
}

const MONTHS = [
  'january', 'february', 'march', 'april', 'may', 'june',
  'july', 'august', 'september', 'october', 'november', 'december',
];

/** LoCoMo session stamps look like `1:56 pm on 8 May, 2023`; read as UTC. */
export function parseSessionDate(stamp: string): Date {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(
    stamp.trim(),
  );
  if (!m) throw new Error(`unrecognised session date: ${stamp}`);
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) throw new Error(`unrecognised month in session date: ${stamp}`);
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/**
 * Evidence ids as published are imperfect: `D8:6; D9:17` packs two ids in one string, `D:11:26`
 * has a stray colon, `D` is nothing. Every `D<session>:<turn>` found is kept if that turn exists.
 */
export function cleanEvidence(raw: readonly string[], known: ReadonlySet<string>): string[] {
  const ids = new Set<string>();
  for (const entry of raw) {
    for (const m of entry.matchAll(/D:?(\d+):(\d+)/g)) {
      const id = `D${m[1]}:${m[2]}`;
      if (known.has(id)) ids.add(id);
    }
  }
  return [...ids];
}

export function loadLocomo(path: string): Conversation[] {
  const samples = JSON.parse(readFileSync(path, 'utf8')) as RawSample[];
  return samples.map((sample) => {
    const conv = sample.conversation;
    const turns: Turn[] = [];
    const sessions = Object.keys(conv)
      .map((key) => /^session_(\d+)$/.exec(key))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const session of sessions) {
      const date = String(conv[`session_${session}_date_time`]);
      const start = parseSessionDate(date);
      (conv[`session_${session}`] as RawTurn[]).forEach((t, i) => {
        const caption = t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : '';
        // One second per turn keeps the order of a session whose turns share one timestamp.
        turns.push({
          id: t.dia_id,
          session,
          speaker: t.speaker,
          text: `${t.text}${caption}`,
          caption: t.blip_caption ?? null,
          date,
          created_at: new Date(start.getTime() + i * 1000),
        });
      });
    }
    const known = new Set(turns.map((t) => t.id));
    const questions = sample.qa
      .filter((q): q is typeof q & { category: Category } => q.category in CATEGORIES)
      .map((q) => ({
        question: q.question,
        answer: String(q.answer ?? ''),
        category: q.category,
        evidence: cleanEvidence(q.evidence ?? [], known),
      }));
    return { sampleId: sample.sample_id, turns, questions };
  });
}

/** How a turn reads as an episode: who said it and what. */
export function turnContent(turn: Turn): string {
  return `${turn.speaker}: ${turn.text}`;
}

/** Share of evidence turns present; null when the question has no usable evidence. */
export function evidenceRecall(
  evidence: readonly string[],
  included: ReadonlySet<string>,
): number | null {
  if (evidence.length === 0) return null;
  return evidence.filter((id) => included.has(id)).length / evidence.length;
}

/** Share of the answer's content words (stemmed, stopwords removed) found in the context. */
export function answerTokenRecall(answer: string, context: string): number | null {
  const wanted = [...new Set(analyze(answer))];
  if (wanted.length === 0) return null;
  const present = new Set(analyze(context));
  return wanted.filter((t) => present.has(t)).length / wanted.length;
}

export interface BaselineResult {
  ids: Set<string>;
  text: string;
  tokens: number;
}

/**
 * Greedy packing of pre-rendered lines in the given order, skipping lines that do not fit (as
 * the service does). Baselines pay no headings and no task block, so they get slightly more
 * room than the service for the same budget.
 */
export function packLines(
  order: readonly number[],
  lines: readonly string[],
  lineTokens: readonly number[],
  turnIds: readonly string[],
  budget: number,
): BaselineResult {
  const ids = new Set<string>();
  const chosen: number[] = [];
  let used = 0;
  for (const i of order) {
    if (used + lineTokens[i] > budget) continue;
    used += lineTokens[i];
    chosen.push(i);
    ids.add(turnIds[i]);
  }
  chosen.sort((a, b) => a - b);
  const text = chosen.map((i) => lines[i]).join('');
  return { ids, text, tokens: countTokens(text) };
}

/** Baseline (a) order: the most recent turns first. Turns are in chronological order. */
export function recentOrder(turnCount: number): number[] {
  return Array.from({ length: turnCount }, (_, i) => turnCount - 1 - i);
}

/** Baseline (b) order: plain BM25 of the question over turn contents, best first, newer on ties. */
export function bm25Order(question: string, contents: readonly string[]): number[] {
  const scores = bm25Scores(question, contents);
  return contents.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || b - a);
}
