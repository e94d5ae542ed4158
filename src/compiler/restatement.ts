/**
 * How a memory written over the API (POST /v1/memories) meets the subject's active memories —
 * the compiler's rule (memory-plan.ts) applied to one memory, except that a restatement is not
 * dropped: the caller asked for this memory, so it replaces the one it restates and leaves a
 * visible history (compat.md "Supersession").
 *
 * Restates: same kind, and the same non-null attribute key or the same comparable content.
 * The newer `valid_from` wins: restated memories that are older are superseded by the new one;
 * if one is newer, the new memory is older news and is stored already superseded by it.
 */
import { oneLine } from 'src/common/text/one-line';
import { comparable, normaliseText, splitSentences, truncateAtWord } from './compiler-text';
import { extractFacts } from './fact-patterns';
import type { MemoryKind } from './memory-kinds';

export interface RestatementCandidate {
  id: string;
  kind: MemoryKind;
  content: string;
  attribute_key: string | null;
  valid_from: Date;
}

export interface RestatementOutcome {
  /** Older restated memories the new one supersedes. */
  supersede: string[];
  /** Set when a restated memory is newer: the new memory is stored superseded by it from then. */
  supersededBy: { id: string; at: Date } | null;
}

export function restates(a: Omit<RestatementCandidate, 'id' | 'valid_from'>, b: Omit<RestatementCandidate, 'id' | 'valid_from'>): boolean {
  if (a.kind !== b.kind) return false;
  if (a.attribute_key !== null && a.attribute_key === b.attribute_key) return true;
  const content = comparable(a.content);
  return content !== '' && content === comparable(b.content);
}

export function resolveRestatement(memory: Omit<RestatementCandidate, 'id'>, active: RestatementCandidate[]): RestatementOutcome {
  const rivals = active.filter((m) => restates(memory, m));
  const newer = rivals.filter((m) => m.valid_from.getTime() > memory.valid_from.getTime()).sort((a, b) => a.valid_from.getTime() - b.valid_from.getTime());
  if (newer.length > 0) return { supersede: [], supersededBy: { id: newer[0].id, at: newer[0].valid_from } };
  return { supersede: rivals.map((m) => m.id), supersededBy: null };
}

/**
 * What a written memory is about and its one-line summary, as the compiler would say it: a
 * profile fact stating exactly one attribute gets that attribute's key (`profile:plan`) and a
 * `label: value` summary, so a later fact about the same attribute supersedes it whichever way
 * it arrives. Anything else has no key and a summary cut from the content.
 */
export function describeMemory(kind: MemoryKind, content: string): { attribute_key: string | null; summary: string } {
  const fallback = truncateAtWord(oneLine(content), 200);
  if (kind !== 'profile_fact') return { attribute_key: null, summary: fallback };
  const facts = splitSentences(normaliseText(content), 20).flatMap((sentence) => extractFacts(sentence));
  const keys = new Set(facts.map((f) => f.key));
  if (keys.size !== 1) return { attribute_key: null, summary: fallback };
  const fact = facts[0];
  return { attribute_key: fact.key, summary: `${fact.label}: ${fact.value}` };
}
