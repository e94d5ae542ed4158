import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { decodeJsonCursor, encodeJsonCursor, isUtcMicros, isUuid } from 'src/common/http/page-cursor';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { buildEventBody, WebhookEventName, webhookSetupWarnings } from './delivery-policy';
import {
  ListWebhookEventsQueryDto,
  RequeueDeadLettersDto,
  RequeueDeadLettersResultDto,
  toWebhookEventDto,
  toWebhookEventSummaryDto,
  WebhookEventDto,
  WebhookEventListDto,
  WebhookStatsDto,
} from './dto/webhook-admin.dto';
import { WebhookEventCursor, WebhooksRepository } from './webhooks.repository';

/**
 * The outbox: other modules call `enqueue` with their transaction's EntityManager, so an
 * event row exists exactly when the change it reports was committed. With WEBHOOK_URL empty
 * nothing is written (contract: no events are sent).
 */
@Injectable()
export class WebhooksService implements OnApplicationBootstrap {
  private readonly logger = new Logger('webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
  ) {}

  onApplicationBootstrap(): void {
    for (const warning of webhookSetupWarnings(this.config.webhookUrl, this.config.webhookSecret)) this.logger.warn(warning);
  }

  get enabled(): boolean {
    return this.config.webhookUrl !== '';
  }

  async enqueue(em: EntityManager, scope: AnyScope, event: WebhookEventName, data: Record<string, unknown>): Promise<void> {
    await this.enqueueMany(em, scope, [{ event, data }]);
  }

  async enqueueMany(em: EntityManager, scope: AnyScope, events: { event: WebhookEventName; data: Record<string, unknown> }[]): Promise<void> {
    if (!this.enabled || events.length === 0) return;
    const timestamp = new Date().toISOString();
    await this.repo.insert(
      em,
      scope,
      events.map((e) => ({ event: e.event, payload: buildEventBody(e.event, e.data, timestamp, scope.insertValue) })),
    );
  }

  /** Removes the subject from stored events (subject erasure), inside the caller's transaction. */
  forgetSubject(em: EntityManager, scope: TenantScope, subjectId: string): Promise<number> {
    return this.repo.forgetSubject(em, scope, subjectId);
  }

  // Operator views (contract "Operator endpoints": filtered by an explicit tenant_id, never
  // restricted by the caller's tenant).

  async stats(_ctx: Ctx, scope: OperatorScope): Promise<WebhookStatsDto> {
    const c = await this.repo.counts(this.ds.manager, scope);
    const age = c.oldest_pending_age_seconds;
    return {
      pending: c.pending,
      delivered: c.delivered,
      dead_letter: c.dead_letter,
      total: c.pending + c.delivered + c.dead_letter,
      oldest_pending_age_seconds: age === null ? null : Math.max(0, Math.round(age * 1000) / 1000),
    };
  }

  /** Outbox rows per status for the /metrics gauge, every tenant; as cheap as `stats`. */
  async countsByStatus(scope: OperatorScope): Promise<Record<'pending' | 'delivered' | 'dead_letter', number>> {
    const c = await this.repo.counts(this.ds.manager, scope);
    return { pending: c.pending, delivered: c.delivered, dead_letter: c.dead_letter };
  }

  async getEvent(_ctx: Ctx, scope: OperatorScope, id: string): Promise<WebhookEventDto> {
    const row = await this.repo.findById(this.ds.manager, scope, id);
    if (!row) throw AppError.notFound(`Webhook event ${id} not found.`);
    return toWebhookEventDto(row);
  }

  /**
   * Events newest first with the listing's filters, in keyset pages of `limit` rows and at most
   * SERVICE_READ_PAGE_BYTES (about: the last row may pass it); `next_cursor` continues.
   */
  async listEvents(_ctx: Ctx, scope: OperatorScope, query: ListWebhookEventsQueryDto): Promise<WebhookEventListDto> {
    const page = await this.repo.page(this.ds.manager, scope, {
      status: query.status,
      subjectId: query.subject_id,
      event: query.event,
      before: query.cursor === undefined ? null : decodeJsonCursor(query.cursor, readEventCursor),
      limit: query.limit,
      maxBytes: this.config.readPageBytes,
    });
    return { events: page.rows.map(toWebhookEventSummaryDto), next_cursor: page.more && page.last ? encodeJsonCursor([page.last.at, page.last.id]) : null };
  }

  async requeueDeadLetters(_ctx: Ctx, scope: OperatorScope, dto: RequeueDeadLettersDto): Promise<RequeueDeadLettersResultDto> {
    const ids = await this.repo.requeueDead(this.ds.manager, scope, dto.event_ids ?? null);
    return { requeued: ids.length };
  }

  /**
   * The CLI's redrive: the same re-queue in batches, so a large dead-letter queue is not one
   * long-locking statement and the operator sees progress.
   */
  async requeueDeadLettersInBatches(scope: OperatorScope, ids: string[] | null, onBatch: (batch: number, total: number) => void, batchSize = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.repo.requeueDead(this.ds.manager, scope, ids, batchSize);
      total += batch.length;
      if (batch.length > 0) onBatch(batch.length, total);
      if (batch.length < batchSize) return total;
    }
  }
}

/** The listing's cursor: `[created_at, id]` of the last event on the page. */
function readEventCursor(value: unknown): WebhookEventCursor | null {
  return Array.isArray(value) && value.length === 2 && isUtcMicros(value[0]) && isUuid(value[1]) ? { at: value[0], id: value[1] } : null;
}
