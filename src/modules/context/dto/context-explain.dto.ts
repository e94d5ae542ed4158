import { ApiProperty } from '@nestjs/swagger';
import { POLICY_ACTIONS } from 'src/modules/policy/policy-bundle';
import type { PolicyAction } from 'src/modules/policy/policy-bundle';
import { ContextBundleDto } from './context.dto';

/** The contract's composite score, part by part: the four add up to `score`. */
export class ScoreComponentsDto {
  /** profile_fact 10, procedure 8, episode_summary 5, raw_episode 3. */
  kind_priority: number;
  /** 0–5, newest highest; the requested session's items get 5 and the others share 0–4 (the session boost). */
  recency: number;
  /** Task relevance: 0–5 from text, up to 8 with embeddings. */
  relevance: number;
  /** +3 while valid, −4 once its valid_to has passed. */
  validity: number;
}

/** One candidate the bounded reads fetched, scored, and whether the bundle holds it and why not. */
export class CandidateExplanationDto {
  id: string;
  @ApiProperty({ enum: ['memory', 'episode'] })
  source: 'memory' | 'episode';
  /** profile_fact, procedure, episode_summary, raw_episode, or a memory kind without a section. */
  kind: string;
  /** The candidate's text (first 500 characters); null for a memory the policy denied. */
  @ApiProperty({ type: String, nullable: true })
  text: string | null;
  created_at: string;
  @ApiProperty({ type: String, nullable: true })
  session_id: string | null;
  /** In the requested session: recency 5 and packed before everything else. */
  in_session: boolean;
  /** The composite score; null for a candidate left out before scoring (policy, no section). */
  @ApiProperty({ type: Number, nullable: true })
  score: number | null;
  @ApiProperty({ type: ScoreComponentsDto, nullable: true })
  components: ScoreComponentsDto | null;
  included: boolean;
  /** Why it was left out: budget (packing found no room), duplicate (a better-ranked item says the same), policy_denied, no_section (a kind the bundle has no section for); null when included. */
  @ApiProperty({ enum: ['budget', 'duplicate', 'policy_denied', 'no_section'], nullable: true })
  reason: 'budget' | 'duplicate' | 'policy_denied' | 'no_section' | null;
  /** Position in the bundle's render order when included. */
  @ApiProperty({ type: Number, nullable: true })
  rank: number | null;
  /** Position in the order packing tried the ranked candidates (standing items, session, relevance, the rest). */
  @ApiProperty({ type: Number, nullable: true })
  pack_order: number | null;
  /** The section it renders in when included. */
  @ApiProperty({ type: String, nullable: true })
  section: string | null;
  /** cl100k tokens of its rendered line, headings not included; null when not scored. */
  @ApiProperty({ type: Number, nullable: true })
  tokens: number | null;
  /** The policy rule that matched its labels. */
  @ApiProperty({ type: String, nullable: true })
  policy_rule_id: string | null;
  /** denied (left out, enforce mode) or would_deny (log_only mode: kept, reported). */
  @ApiProperty({ enum: POLICY_ACTIONS, nullable: true })
  policy_action: PolicyAction | null;
}

/** Token cost of one section of `assembled_context`. */
export class SectionCostDto {
  /** `## Task`, `## About this user`, `## Procedures`, `## Recent history`, `## Recent interactions`. */
  heading: string;
  /** cl100k tokens of the section, its heading included. */
  tokens: number;
  /** Items (bullet lines) in it. */
  items: number;
}

export class ContextExplanationDto {
  /** The bundle exactly as POST /v1/context answers it for this request. */
  bundle: ContextBundleDto;
  max_tokens: number;
  @ApiProperty({ type: String, nullable: true })
  session_id: string | null;
  /** Every candidate: ranked ones best score first, then those left out before ranking. */
  candidates: CandidateExplanationDto[];
  sections: SectionCostDto[];
}
