/**
 * Who is speaking: the subject (customer, user, or a named person in a chat between people),
 * an agent, or the system. Facts about who the subject is come only from the subject's side.
 */
import { words } from './compiler-text';

export type Side = 'subject' | 'agent' | 'system';

export interface Speaker {
  side: Side;
  /** The speaker's own name when the role is one ("Caroline"); null for generic roles ("user"). */
  name: string | null;
  /** Lowercase slug of `name` for attribute keys ("caroline"); null with `name`. */
  slug: string | null;
}

const SYSTEM_ROLES = new Set(['system', 'developer', 'tool', 'function', 'ipython', 'context', 'metadata', 'observation']);
const AGENT_ROLES = new Set([
  'assistant', 'agent', 'bot', 'chatbot', 'ai', 'model', 'support', 'staff', 'operator', 'representative', 'rep',
  'advisor', 'adviser', 'moderator', 'admin', 'concierge', 'helpdesk', 'gpt', 'claude', 'copilot', 'llm', 'csr',
  'specialist', 'technician', 'employee', 'service', 'team', 'auto', 'autoresponder', 'automated',
]);
const SUBJECT_ROLES = new Set([
  'user', 'customer', 'human', 'client', 'caller', 'visitor', 'member', 'guest', 'patient', 'buyer', 'me',
  'requester', 'contact', 'lead', 'prospect', 'end', 'enduser', 'subscriber', 'shopper', 'tenant', 'student',
  'person', 'speaker', 'participant', 'account', 'owner', 'consumer', 'player', 'learner', 'applicant',
]);

/** Classifies a message role. Unknown words are taken as a person's name, as in LoCoMo-style chats. */
export function classifyRole(role: string): Speaker {
  const tokens = role.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (tokens.length === 0) return { side: 'subject', name: null, slug: null };
  if (tokens.some((t) => SYSTEM_ROLES.has(t))) return { side: 'system', name: null, slug: null };
  if (tokens.some((t) => AGENT_ROLES.has(t))) return { side: 'agent', name: null, slug: null };
  if (tokens.some((t) => SUBJECT_ROLES.has(t))) return { side: 'subject', name: null, slug: null };
  const name = role.trim().slice(0, 64);
  return { side: 'subject', name, slug: words(name).join('-') };
}

/** Episode sources that carry agent-side text (compat.md's list for SLA), for non-chat payloads. */
const AGENT_SOURCES = new Set(['assistant', 'agent', 'system', 'tool', 'support', 'staff']);

export function sideOfSource(source: string): Side {
  return AGENT_SOURCES.has(source.trim().toLowerCase()) ? 'agent' : 'subject';
}
