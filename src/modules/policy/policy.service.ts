import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { metrics } from 'src/common/metrics/metrics';
import { sha256Hex } from 'src/modules/receipts/signing';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { PolicyBundleDto } from './dto/policy.dto';
import { applyPolicy, Caller, parsePolicyBundle, PolicyBundle, PolicyDenial, PolicyInvalid, skippedRules, SkippedRule } from './policy-bundle';
import { PolicyRepository } from './policy.repository';

/** The bundle in force for a request, with what a receipt's policy_snapshot copies. */
export interface ActivePolicy {
  bundle: PolicyBundle | null;
  yaml: string | null;
  hash: string | null;
}

export const NO_POLICY: ActivePolicy = { bundle: null, yaml: null, hash: null };

/** Largest stored bundle: it is copied into every receipt's policy_snapshot. */
export const MAX_POLICY_BYTES = 64 * 1024;

/**
 * How long a process keeps a tenant's bundle before reading it again. Context assembly asks on
 * every request; a second keeps that off the database while a change made through another
 * process is in force everywhere a second later (this process forgets its copy at once).
 */
const CACHE_MS = 1000;

/** The outcome of applying a policy to one read: what is kept and what the receipt lists. */
export interface PolicyOutcome<T> {
  kept: T[];
  denials: PolicyDenial[];
}

@Injectable()
export class PolicyService {
  private readonly cache = new Map<string, { at: number; policy: ActivePolicy }>();

  constructor(
    private readonly ds: DataSource,
    private readonly repo: PolicyRepository,
    private readonly webhooks: WebhooksService,
  ) {}

  /** The tenant's bundle (parsed), or NO_POLICY. */
  async active(scope: TenantScope): Promise<ActivePolicy> {
    const key = scope.tenantId ?? '';
    const hit = this.cache.get(key);
    if (hit !== undefined && Date.now() - hit.at < CACHE_MS) return hit.policy;
    const row = await this.repo.find(this.ds.manager, scope);
    const policy = row === null ? NO_POLICY : { bundle: parsePolicyBundle(row.yaml), yaml: row.yaml, hash: row.hash };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { at: Date.now(), policy });
    return policy;
  }

  /** A bundle frozen in a receipt, parsed again (replay). Throws PolicyInvalid. */
  fromSnapshot(yaml: string | null, hash: string | null): ActivePolicy {
    if (yaml === null) return NO_POLICY;
    return { bundle: parsePolicyBundle(yaml), yaml, hash: hash ?? sha256Hex(yaml) };
  }

  /** 401 when the bundle requires a caller identity and the request does not give both parts. */
  requireIdentity(policy: ActivePolicy, caller: Caller): void {
    if (policy.bundle?.require_caller_identity !== true) return;
    if (caller.caller_id !== null && caller.caller_type !== null) return;
    throw new AppError(ErrorCode.CallerIdentityRequired, 'The policy bundle requires caller_id and caller_type on this request.');
  }

  /** Applies the bundle to memories (anything with id and sensitivity_labels); counts denials. */
  apply<T extends { id: string; sensitivity_labels?: string[] | null }>(policy: ActivePolicy, caller: Caller, rows: readonly T[]): PolicyOutcome<T> {
    if (policy.bundle === null || policy.bundle.rules.length === 0) return { kept: [...rows], denials: [] };
    const outcome = applyPolicy(policy.bundle, caller, rows);
    if (outcome.denials.length > 0) metrics.policyDenials.inc({ mode: policy.bundle.mode }, outcome.denials.length);
    return outcome;
  }

  skipped(policy: ActivePolicy, caller: Caller): SkippedRule[] {
    return policy.bundle === null ? [] : skippedRules(policy.bundle, caller);
  }

  // Operator endpoints (PUT/GET/DELETE /admin/policy).

  async get(scope: OperatorScope): Promise<PolicyBundleDto> {
    const row = await this.repo.find(this.ds.manager, scope);
    if (row === null) throw AppError.notFound(`No policy bundle for ${scope.tenantId === null ? 'this service' : `tenant ${JSON.stringify(scope.tenantId)}`}.`);
    return toPolicyBundleDto(row, parsePolicyBundle(row.yaml));
  }

  /**
   * Validates, then stores and emits `policy.updated` in one transaction. An invalid bundle is
   * a 422 naming the line, and the previous bundle stays in force.
   */
  async put(scope: OperatorScope, yaml: string): Promise<PolicyBundleDto> {
    if (Buffer.byteLength(yaml, 'utf8') > MAX_POLICY_BYTES) throw AppError.validation(['body', 'yaml'], `a policy bundle is at most ${MAX_POLICY_BYTES} bytes`);
    let bundle: PolicyBundle;
    try {
      bundle = parsePolicyBundle(yaml);
    } catch (err) {
      if (!(err instanceof PolicyInvalid)) throw err;
      throw new AppError(ErrorCode.InvalidPolicy, `Invalid policy bundle at line ${err.line}: ${err.problem}`, { line: err.line, problem: err.problem });
    }
    const hash = sha256Hex(yaml);
    const row = await this.ds.transaction(async (em) => {
      const stored = await this.repo.upsert(em, scope, yaml, hash);
      await this.webhooks.enqueue(em, scope, 'policy.updated', { tenant_id: scope.tenantId, policy_bundle_hash: hash, mode: bundle.mode, rules: bundle.rules.length, deleted: false });
      return stored;
    });
    this.cache.delete(scope.tenantId ?? '');
    return toPolicyBundleDto(row, bundle);
  }

  async delete(scope: OperatorScope): Promise<{ deleted: boolean }> {
    const deleted = await this.ds.transaction(async (em) => {
      const gone = await this.repo.delete(em, scope);
      if (gone) await this.webhooks.enqueue(em, scope, 'policy.updated', { tenant_id: scope.tenantId, policy_bundle_hash: null, mode: null, rules: 0, deleted: true });
      return gone;
    });
    this.cache.delete(scope.tenantId ?? '');
    return { deleted };
  }
}

function toPolicyBundleDto(row: { tenant_id: string | null; yaml: string; hash: string; updated_at: Date }, bundle: PolicyBundle): PolicyBundleDto {
  return {
    tenant_id: row.tenant_id,
    policy_bundle_hash: row.hash,
    yaml: row.yaml,
    mode: bundle.mode,
    require_caller_identity: bundle.require_caller_identity,
    receipts: bundle.receipts,
    rules: bundle.rules,
    updated_at: row.updated_at,
  };
}
