/**
 * Shapes shared by the pure support logic (sessions, SLA, health, handoff). Inputs are what the
 * service reads from the database; outputs are the wire shapes of contract 0.6.1 plus the extra
 * keys compat.md says clients rely on, so the service returns them as they are.
 */

export const RESOLUTION_STATUSES = ['open', 'resolved', 'unresolved'] as const;
export type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

/** A session without a resolution record has status `unknown` (compat.md, "SLA"). */
export const SESSION_STATUSES = [...RESOLUTION_STATUSES, 'unknown'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const HEALTH_STATES = ['healthy', 'watch', 'at_risk'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export interface SupportEpisode {
  id: string;
  session_id: string | null;
  source: string;
  type: string;
  /** Flattened episode text; conversations are `role: content` lines. */
  text: string;
  created_at: Date;
}

export interface ResolutionRecord {
  id: string;
  subject_id: string;
  session_id: string;
  status: ResolutionStatus;
  resolution_summary: string | null;
  resolved_at: Date | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** An active `profile_fact` memory. */
export interface ProfileFact {
  id: string;
  content: string;
  summary: string;
  created_at: Date;
}

/** An active `procedure` memory. */
export interface ProcedureMemory {
  id: string;
  content: string;
  created_at: Date;
}

export interface SlaSessionItem {
  session_id: string;
  status: SessionStatus;
  first_message_at: string;
  first_response_at: string | null;
  resolved_at: string | null;
  first_response_seconds: number | null;
  resolution_seconds: number | null;
  /** Null for a resolved session (contract). */
  open_duration_seconds: number | null;
  first_response_breached: boolean;
  resolution_breached: boolean;
}

export interface SlaResult {
  subject_id: string;
  total_sessions: number;
  resolved_sessions: number;
  open_sessions: number;
  avg_first_response_seconds: number;
  avg_resolution_seconds: number;
  first_response_breach_count: number;
  resolution_breach_count: number;
  sessions: SlaSessionItem[];
}

/** Every health signal, in the order factors with equal impact are listed. */
export const HEALTH_SIGNALS = [
  'unresolved_issues',
  'idle_open_issue',
  'sla_resolution_breaches',
  'slow_first_response',
  'repeated_issues',
  'escalations',
  'recent_resolution',
  'high_resolution_rate',
] as const;
export type HealthSignal = (typeof HEALTH_SIGNALS)[number];

export interface HealthFactor {
  signal: HealthSignal;
  /** Signed whole points added to the base score of 100. */
  impact: number;
  detail: string;
}

export interface HealthResult {
  subject_id: string;
  score: number;
  state: HealthState;
  factors: HealthFactor[];
}

export type HealthEventName = 'subject.health_degraded' | 'subject.health_improved';

/** `event` and `data` of the webhook body; the webhook layer adds `timestamp`. */
export interface HealthTransitionEvent {
  event: HealthEventName;
  data: {
    subject_id: string;
    previous_state: HealthState;
    current_state: HealthState;
    score: number;
    previous_score: number;
    factors: HealthFactor[];
    generated_at: string;
  };
}

export interface ResolutionHistoryItem {
  session_id: string;
  status: ResolutionStatus;
  /** `resolution_summary`, or '' when none was given (strict clients type it as a string). */
  summary: string;
  resolved_at: string | null;
}

export interface HandoffProvenance {
  fact_ids: string[];
  episode_ids: string[];
  resolution_ids: string[];
  context_episode_ids: string[];
}

export interface HandoffPack {
  subject_id: string;
  session_id: string;
  reason: string;
  generated_at: string;
  customer_summary: string;
  active_issue: string;
  attempted_steps: string[];
  key_facts: string[];
  resolution_history: ResolutionHistoryItem[];
  recent_context: string[];
  health_score: number | null;
  health_state: HealthState | null;
  health_factors: HealthFactor[];
  handoff_notes: string;
  token_estimate: number;
  provenance: HandoffProvenance;
}
