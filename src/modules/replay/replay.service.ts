import { Injectable } from '@nestjs/common';
import type { Ctx } from 'src/common/context/request-context';
import { parseAsOf } from 'src/common/db/as-of';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { ContextService } from 'src/modules/context/context.service';
import { ActivePolicy, PolicyService } from 'src/modules/policy/policy.service';
import type { ReceiptBody } from 'src/modules/receipts/receipt-body';
import { GovernanceOptions, ReceiptsService } from 'src/modules/receipts/receipts.service';
import { sha256Hex } from 'src/modules/receipts/signing';
import { SupportService } from 'src/modules/support/support.service';
import { DEFAULT_REPLAY_AS_OF, ReplayRequestDto, ReplayResultDto } from './dto/replay.dto';
import { diffReceipts } from './replay-diff';

/** Why a handoff replay reads today's data whatever `as_of` asks (docs/governance.md, Replay). */
const HANDOFF_NOTE =
  'A handoff pack reads health, SLA and resolutions, which keep no history, and dates its lines against the time of the call: ' +
  'it is replayed against the data as it is now, so it reproduces the original only if nothing of the subject changed since.';

/**
 * POST /v1/receipts/{id}/replay (docs/governance.md, Replay): the receipt's request run again
 * under the policy frozen in it, recorded as a new `as_of_replay` receipt, compared with the
 * original. With `as_of: "original"` a context receipt is re-read at its own `as_of`, so unless
 * something was deleted since, the replay reproduces its `context_hash` byte for byte.
 */
@Injectable()
export class ReplayService {
  constructor(
    private readonly receipts: ReceiptsService,
    private readonly policies: PolicyService,
    private readonly context: ContextService,
    private readonly support: SupportService,
  ) {}

  async replay(ctx: Ctx, receiptId: string, body: ReplayRequestDto): Promise<ReplayResultDto> {
    const original = await this.receipts.find(ctx, receiptId);
    if (original.mode === 'as_of_replay') {
      throw new AppError(ErrorCode.UnreplayableNestedReplay, `Receipt ${receiptId} is itself a replay; replay its original ${original.parent_receipt_id ?? ''}`.trim());
    }
    const policy = this.frozenPolicy(original);
    const request = original.request;
    if (request === undefined || request === null || (request.endpoint !== 'context' && request.endpoint !== 'handoff')) {
      throw new AppError(ErrorCode.UnreplayableInvalidSnapshot, `Receipt ${receiptId} does not record the request it answered.`);
    }
    const asOf = this.instant(original, body.as_of ?? DEFAULT_REPLAY_AS_OF);
    const fields = {
      subject_id: original.subject_id,
      max_tokens: request.max_tokens,
      caller_id: request.caller_id ?? undefined,
      caller_type: request.caller_type ?? undefined,
      query_id: original.query_id ?? undefined,
      task_id: original.task_id ?? undefined,
      parent_receipt_id: original.receipt_id,
    };
    let replayId: string | null;
    let asOfApplied = true;
    let note: string | null = null;
    if (request.endpoint === 'context') {
      const opts: GovernanceOptions = { policy, mode: 'as_of_replay', forceEmit: true, asOf: asOf ?? undefined };
      const bundle = await this.context.assemble(ctx, { ...fields, task: original.task, session_id: request.session_id ?? undefined }, opts);
      replayId = bundle.receipt_id;
    } else {
      asOfApplied = asOf === null;
      note = HANDOFF_NOTE;
      const opts: GovernanceOptions = { policy, mode: 'as_of_replay', forceEmit: true };
      const pack = await this.support.handoff(ctx, { ...fields, session_id: request.session_id ?? '', reason: request.reason ?? undefined, max_tokens: request.max_tokens }, opts);
      replayId = pack.receipt_id;
    }
    const replay = await this.receipts.find(ctx, replayId!);
    return {
      original_receipt_id: original.receipt_id,
      replay_receipt_id: replay.receipt_id,
      as_of: replay.as_of,
      diff: { ...diffReceipts(original, replay), as_of_applied: asOfApplied, note },
    };
  }

  /**
   * The policy frozen in the receipt, parsed again. A snapshot whose YAML no longer hashes to
   * its recorded hash, or no longer parses, is refused rather than replayed under other rules.
   */
  private frozenPolicy(original: ReceiptBody): ActivePolicy {
    const snapshot = original.policy_snapshot as ReceiptBody['policy_snapshot'] | null | undefined;
    if (snapshot === null || snapshot === undefined || typeof snapshot !== 'object') {
      throw new AppError(ErrorCode.UnreplayableMissingPolicySnapshot, `Receipt ${original.receipt_id} has no policy_snapshot to replay under.`);
    }
    const { bundle_yaml: yaml, bundle_hash: hash } = snapshot;
    const invalid = (why: string) => new AppError(ErrorCode.UnreplayableInvalidSnapshot, `The policy_snapshot of receipt ${original.receipt_id} ${why}.`);
    if (yaml === null && hash === null) return this.policies.fromSnapshot(null, null);
    if (typeof yaml !== 'string' || typeof hash !== 'string') throw invalid('is incomplete (bundle_yaml and bundle_hash go together)');
    if (sha256Hex(yaml) !== hash) throw invalid('does not match its bundle_hash');
    try {
      return this.policies.fromSnapshot(yaml, hash);
    } catch {
      throw invalid('is not a valid policy bundle');
    }
  }

  /** The instant to read at: null for now, the receipt's as_of for `original`, else the given time (not in the future). */
  private instant(original: ReceiptBody, asOf: string): Date | null {
    if (asOf === 'now') return null;
    if (asOf === 'original') return new Date(original.as_of);
    return parseAsOf(asOf, ['body', 'as_of']);
  }
}
