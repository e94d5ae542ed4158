/**
 * POST /v1/context/explain: why a bundle holds what it holds. Runs only on the explain path, after
 * the ordinary assembly, and re-derives its steps from the same inputs (scoring, de-duplication,
 * selection and packing are deterministic), so POST /v1/context does no extra work.
 */
import type { PolicyAction } from 'src/modules/policy/policy-bundle';
import { countTokens } from 'src/common/text/tokenizer';
import type { WordVectors } from 'src/common/text/word-vectors';
import { byTimeThenSeq } from './assemble';
import { PackResult, renderLine } from './packing';
import { ContextCandidate, ContextLabel, dropDuplicates, scoreCandidates, selectCandidates } from './ranking';

export type LeftOutReason = 'budget' | 'duplicate' | 'policy_denied' | 'no_section';

export interface ScoreComponents {
  kind_priority: number;
  recency: number;
  relevance: number;
  validity: number;
}

export interface CandidateExplanation {
  id: string;
  source: 'memory' | 'episode';
  /** A context label (profile_fact, procedure, episode_summary, raw_episode) or the memory's kind. */
  kind: string;
  /** The candidate's text; null for a memory the policy denied (its content is what was withheld). */
  text: string | null;
  created_at: string;
  session_id: string | null;
  /** In the requested session: recency 5 (others share 0–4) and packed first. */
  in_session: boolean;
  /** kind_priority + recency + relevance + validity; null for a candidate left out before scoring. */
  score: number | null;
  components: ScoreComponents | null;
  included: boolean;
  /** null when included. */
  reason: LeftOutReason | null;
  /** Position in the bundle (0-based, render order) when included. */
  rank: number | null;
  /** Position in packing order (what packing tried first) among the candidates it saw. */
  pack_order: number | null;
  /** Section it renders in when included. */
  section: string | null;
  /** Tokens of its rendered line (without section headings). */
  tokens: number | null;
  policy_rule_id: string | null;
  /** `denied` (left out) or `would_deny` (log_only mode: kept, reported). */
  policy_action: PolicyAction | null;
}

export interface SectionCost {
  /** Heading as rendered (`## About this user`), or `## Task`. */
  heading: string;
  tokens: number;
  items: number;
}

export interface PolicyDenialInput {
  memory_id: string;
  rule_id: string;
  action: PolicyAction;
}

export interface ExplainInput {
  task: string;
  /** What the assembly ranked: memory candidates after policy, and episodes. */
  candidates: readonly ContextCandidate[];
  maxTokens: number;
  sessionId: string | null;
  now: Date;
  /** What the assembly expanded the task's words with (AssembleOptions.wordVectors). */
  wordVectors: WordVectors | null;
  packed: PackResult;
  denials: readonly PolicyDenialInput[];
  /** Memories the bounded reads fetched but the assembly did not rank: denied or of a kind without a section. */
  unranked: readonly { id: string; kind: string; created_at: Date; text: string }[];
}

const SECTION_OF: Readonly<Record<ContextLabel, string>> = {
  profile_fact: '## About this user',
  procedure: '## Procedures',
  episode_summary: '## Recent history',
  raw_episode: '## Recent interactions',
};

const TEXT_CHARS = 500;

export function explainAssembly(input: ExplainInput): { candidates: CandidateExplanation[]; sections: SectionCost[] } {
  const { sessionId } = input;
  const scored = scoreCandidates(input.task, [...input.candidates].sort(byTimeThenSeq), { now: input.now, sessionId, wordVectors: input.wordVectors });
  const kept = dropDuplicates(scored);
  const keptSet = new Set(kept);
  const packOrder = new Map(selectCandidates(kept, { maxTokens: input.maxTokens, sessionId }).map((c, i) => [key(c), i]));
  const rankOf = new Map(input.packed.included.map((c, i) => [key(c), i]));
  const denialOf = new Map(input.denials.map((d) => [d.memory_id, d]));

  const out: CandidateExplanation[] = scored.map((c) => {
    const rank = rankOf.get(key(c));
    const included = rank !== undefined;
    const denial = c.label === 'raw_episode' ? undefined : denialOf.get(c.id);
    const inSession = sessionId !== null && c.session_id === sessionId;
    return {
      id: c.id,
      source: c.label === 'raw_episode' ? 'episode' : 'memory',
      kind: c.label,
      text: c.text.slice(0, TEXT_CHARS),
      created_at: c.created_at.toISOString(),
      session_id: c.session_id,
      in_session: inSession,
      score: round(c.score),
      components: { kind_priority: c.signals.kind, recency: round(c.signals.recency), relevance: round(c.signals.relevance), validity: c.signals.validity },
      included,
      reason: included ? null : keptSet.has(c) ? 'budget' : 'duplicate',
      rank: rank ?? null,
      pack_order: packOrder.get(key(c)) ?? null,
      section: included ? (inSession && (c.label === 'raw_episode' || c.label === 'episode_summary') ? `### Current session (${sessionId})` : SECTION_OF[c.label]) : null,
      tokens: countTokens(renderLine(c)),
      policy_rule_id: denial?.rule_id ?? null,
      policy_action: denial?.action ?? null,
    };
  });
  for (const m of input.unranked) {
    const denial = denialOf.get(m.id);
    out.push({
      id: m.id,
      source: 'memory',
      kind: m.kind,
      text: denial ? null : m.text.slice(0, TEXT_CHARS),
      created_at: m.created_at.toISOString(),
      session_id: null,
      in_session: false,
      score: null,
      components: null,
      included: false,
      reason: denial ? 'policy_denied' : 'no_section',
      rank: null,
      pack_order: null,
      section: null,
      tokens: null,
      policy_rule_id: denial?.rule_id ?? null,
      policy_action: denial?.action ?? null,
    });
  }
  return { candidates: out, sections: sectionCosts(input.packed) };
}

/**
 * Tokens of each `## ` section of the assembled text (headings included) and its items: every
 * item renders as one `- ` line (its text folded to one line), so the bullets are the items.
 */
export function sectionCosts(packed: PackResult): SectionCost[] {
  return packed.assembled_context
    .split(/\n(?=## )/)
    .filter((part) => part.trim() !== '')
    .map((part, i) => {
      const heading = (/^\s*(## [^\n]*)/.exec(part)?.[1] ?? '').trim();
      const items = heading === '## Task' ? 0 : part.split('\n').filter((line) => line.startsWith('- ')).length;
      return { heading, tokens: countTokens(i === 0 ? part : `\n${part}`), items };
    });
}

function key(c: ContextCandidate): string {
  return `${c.label}\u0000${c.id}`;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
