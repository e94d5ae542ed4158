import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import type { AnyScope, TenantScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { decodeCursor, encodeCursor } from 'src/common/http/page-cursor';
import { metrics } from 'src/common/metrics/metrics';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { DEFAULT_POLICY_MODE } from 'src/modules/policy/policy-bundle';
import type { Caller, PolicyDenial } from 'src/modules/policy/policy-bundle';
import { ActivePolicy, PolicyService } from 'src/modules/policy/policy.service';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import type { ReceiptRequestFieldsDto } from './dto/receipt-request.dto';
import { ListReceiptsQueryDto, ReceiptDto, ReceiptListDto, ReceiptVerdictDto } from './dto/receipt.dto';
import { contextOutput, ReceiptBody, ReceiptMode, ReceiptRequest, SelectedEntry } from './receipt-body';
import { ReceiptsRepository } from './receipts.repository';
import { sign, signCanonical, verify, Verdict } from './signing';
import { nextReceiptId } from './receipt-ids';

/**
 * One governed read (context, handoff, or a replay of either) from start to receipt: the
 * policy in force, the caller, the time the data is read at, whether a receipt is due, and the
 * denials collected while filtering.
 */
export interface Governance {
  policy: ActivePolicy;
  caller: Caller;
  asOf: Date;
  emit: boolean;
  mode: ReceiptMode;
  parentReceiptId: string | null;
  queryId: string | null;
  taskId: string | null;
  denials: PolicyDenial[];
}

export interface GovernanceOptions {
  /** Replay: the policy frozen in the original receipt instead of today's bundle. */
  policy?: ActivePolicy;
  /** As-of read: the time the data is read at (default now). */
  asOf?: Date;
  mode?: ReceiptMode;
  /** Replay always writes its receipt. */
  forceEmit?: boolean;
}

/** What an assembly hands over to be recorded. */
export interface AssemblyRecord {
  subjectId: string;
  task: string;
  request: ReceiptRequest;
  /** Built only when a receipt is written (provenance hashes cost a little per item). */
  entries: () => SelectedEntry[];
  text: string;
  tokenEstimate: number;
}

export interface EmittedReceipt {
  receipt_id: string | null;
  receipt_emitted: boolean;
}

export interface DeletionReceipt {
  subject_id: string;
  tenant_id: string | null;
  deleted_at: string;
  counts: Record<string, number>;
  signature: string | null;
  key_id: string | null;
  algorithm: string | null;
}

/**
 * Bytes of stored body text one list page carries at most (each body holds its policy snapshot).
 * Served with their entries unpacked, bodies are about twice their stored text: a page stays
 * near 4 MB of JSON under the service's heap cap.
 */
const LIST_MAX_BYTES = 2 * 1024 * 1024;


@Injectable()
export class ReceiptsService {
  private readonly logger = new Logger('receipts');

  constructor(
    private readonly ds: DataSource,
    private readonly repo: ReceiptsRepository,
    private readonly policies: PolicyService,
    private readonly webhooks: WebhooksService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Before a governed read: loads the tenant's policy (or takes a frozen one), refuses an
   * anonymous caller when the policy requires identity (401), and settles whether a receipt
   * is due: the bundle's `receipts:` overrides the RECEIPTS setting.
   */
  async open(ctx: Ctx, req: ReceiptRequestFieldsDto, opts: GovernanceOptions = {}): Promise<Governance> {
    const policy = opts.policy ?? (await this.policies.active(ctx.scope));
    const caller: Caller = { caller_id: req.caller_id ?? null, caller_type: req.caller_type ?? null };
    this.policies.requireIdentity(policy, caller);
    const setting = policy.bundle?.receipts ?? this.config.receipts;
    const emit = opts.forceEmit === true || setting === 'always' || (setting === 'on_request' && req.emit_receipt === true);
    return {
      policy,
      caller,
      asOf: opts.asOf ?? new Date(),
      emit,
      mode: opts.mode ?? 'retrieval',
      parentReceiptId: req.parent_receipt_id ?? null,
      queryId: req.query_id ?? null,
      taskId: req.task_id ?? null,
      denials: [],
    };
  }

  /** Applies the governance's policy to memories, keeping the denials for the receipt. */
  filter<T extends { id: string; sensitivity_labels?: string[] | null }>(gov: Governance, rows: readonly T[]): T[] {
    const { kept, denials } = this.policies.apply(gov.policy, gov.caller, rows);
    gov.denials.push(...denials);
    return kept;
  }

  /**
   * After the assembly: writes the receipt when one is due. Fails open (contract): a receipt
   * that cannot be written leaves the bundle answered with `receipt_emitted: false`, logged and
   * counted. Replay passes `strict`, since its receipt is the answer.
   */
  async emit(ctx: Ctx, gov: Governance, record: AssemblyRecord, opts: { strict?: boolean } = {}): Promise<EmittedReceipt> {
    if (!gov.emit) return { receipt_id: null, receipt_emitted: false };
    try {
      const body = this.buildBody(ctx, gov, record);
      if (!this.config.receiptWebhooks) {
        // One statement commits by itself: no BEGIN/COMMIT round trips on the context path.
        await this.repo.insert(this.ds.manager, ctx.scope, body, { asyncCommit: this.config.receiptAsyncCommit });
      } else {
        await this.ds.transaction(async (em) => {
          await this.repo.insert(em, ctx.scope, body);
          await this.webhooks.enqueue(em, ctx.scope, 'receipt.created', {
            receipt_id: body.receipt_id,
            subject_id: body.subject_id,
            mode: body.mode,
            context_hash: body.output.context_hash,
          });
        });
      }
      metrics.receipts.inc({ outcome: 'written' });
      return { receipt_id: body.receipt_id, receipt_emitted: true };
    } catch (err) {
      metrics.receipts.inc({ outcome: 'failed' });
      // A replay's receipt is its answer: it cannot fail open.
      if (opts.strict || gov.mode === 'as_of_replay') throw err;
      this.logger.error({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'receipt could not be written; the bundle was returned without one');
      return { receipt_id: null, receipt_emitted: false };
    }
  }

  private buildBody(ctx: Ctx, gov: Governance, record: AssemblyRecord): ReceiptBody {
    const createdAt = new Date().toISOString();
    const body: ReceiptBody = {
      receipt_id: nextReceiptId(),
      parent_receipt_id: gov.parentReceiptId,
      mode: gov.mode,
      query_id: gov.queryId,
      task_id: gov.taskId,
      tenant_id: ctx.scope.tenantId,
      subject_id: record.subjectId,
      task: record.task,
      as_of: gov.asOf.toISOString(),
      created_at: createdAt,
      selected_entries: record.entries(),
      policy: {
        policy_bundle_hash: gov.policy.hash,
        filters_applied: gov.denials,
        filters_skipped: this.policies.skipped(gov.policy, gov.caller),
        mode: gov.policy.bundle?.mode ?? DEFAULT_POLICY_MODE,
      },
      output: contextOutput(record.text, record.tokenEstimate),
      region: this.config.region,
      request: record.request,
      policy_snapshot: { bundle_hash: gov.policy.hash, bundle_yaml: gov.policy.yaml, captured_at: createdAt },
      receipt_signature: null,
      receipt_signature_key_id: null,
      receipt_signature_algorithm: null,
    };
    const signature = sign(body as unknown as Record<string, unknown>, this.config.receiptSigning);
    if (signature !== null) {
      body.receipt_signature = signature.signature;
      body.receipt_signature_key_id = signature.key_id;
      body.receipt_signature_algorithm = signature.algorithm;
    }
    return body;
  }

  /** GET /v1/receipts/{id}: 404 for an unknown id and for another tenant's alike. */
  async get(ctx: Ctx, id: string): Promise<ReceiptDto> {
    return this.find(ctx, id);
  }

  /** The stored body, for replay; 404 like get. */
  async find(ctx: Ctx, id: string): Promise<ReceiptBody> {
    const body = await this.repo.find(this.ds.manager, ctx.scope, id);
    if (body === null) throw AppError.notFound(`Receipt ${id} not found.`);
    return body;
  }

  async list(ctx: Ctx, query: ListReceiptsQueryDto): Promise<ReceiptListDto> {
    const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor, readReceiptCursor);
    const { bodies, more } = await this.repo.list(this.ds.manager, ctx.scope, {
      subjectId: query.subject_id,
      since: query.since === undefined ? undefined : new Date(query.since),
      until: query.until === undefined ? undefined : new Date(query.until),
      beforeId,
      limit: query.limit,
      maxBytes: LIST_MAX_BYTES,
    });
    const last = bodies.at(-1);
    return { receipts: bodies, next_cursor: more && last !== undefined ? encodeCursor(last.receipt_id) : null };
  }

  async verify(ctx: Ctx, id: string): Promise<ReceiptVerdictDto> {
    const body = await this.find(ctx, id);
    return this.verifyBody(body as unknown as Record<string, unknown>);
  }

  /** Verdict on any signed body (receipts, deletion receipts) with the configured keys. */
  verifyBody(body: Record<string, unknown>): Verdict {
    return verify(body, this.config.receiptSigning);
  }

  /**
   * A deletion receipt (docs/governance.md section 4): what was removed and when, signed over
   * the JCS text of `{subject_id, tenant_id, deleted_at, counts}` like a receipt, so an operator
   * can prove the erasure later. It holds no deleted content; the service keeps no copy of it.
   */
  certifyDeletion(scope: TenantScope, subjectId: string, counts: Record<string, number>): DeletionReceipt {
    const certificate = { subject_id: subjectId, tenant_id: scope.tenantId, deleted_at: new Date().toISOString(), counts };
    const signature = signCanonical(certificate, this.config.receiptSigning);
    return { ...certificate, signature: signature?.signature ?? null, key_id: signature?.key_id ?? null, algorithm: signature?.algorithm ?? null };
  }

  /** DELETE /v1/subjects/{id}, inside its transaction. */
  deleteSubject(em: EntityManager, scope: AnyScope, subjectId: string): Promise<number> {
    return this.repo.deleteSubject(em, scope, subjectId);
  }
}

/** The listing's cursor: the last receipt id on the page (a ULID). */
function readReceiptCursor(text: string): string | null {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(text) ? text : null;
}
