import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { RequestContext } from 'src/common/context/request-context';
import { operatorScope } from 'src/common/db/tenant-scope';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { observeWebhookOutcome, observeWebhookPost } from 'src/common/metrics/instrument';
import { SERVICE_VERSION } from 'src/common/version';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { DeliveryResult, eventBodyOf, nextDeliveryStep, RetryPolicy, signPayload, TENANT_HEADER } from './delivery-policy';
import { WebhookEventRow, WebhooksRepository } from './webhooks.repository';

/**
 * Backoff between attempts: 5 s doubling to a 10 min cap (with equal jitter). With the default
 * 8 attempts an event is retried for about 10 minutes before it is dead-lettered, which rides
 * out a receiver restart or deploy; longer outages end in the dead-letter queue for a redrive.
 */
export const WEBHOOK_BACKOFF = { baseMs: 5_000, maxMs: 10 * 60_000 } as const;

/** Events claimed per round; they are sent concurrently. */
const BATCH_SIZE = 20;

/** Extra lease beyond the timeout: time to write the result after the receiver answered. */
const LEASE_MARGIN_MS = 30_000;

export const WEBHOOK_USER_AGENT = `memory-service-webhooks/${SERVICE_VERSION}`;

/**
 * Delivers the webhook outbox. Runs in every process (WORKERS_ENABLED, WEBHOOK_URL set); the
 * claim with FOR UPDATE SKIP LOCKED plus a lease means each due event goes to one process.
 * Delivery is at least once: a process that dies after the POST but before recording it leaves
 * the row to be retaken when its lease ends, so receivers de-duplicate on X-Webhook-Event-Id.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  /** The outbox is every tenant's: an event carries its own tenant (sent in its header). */
  private readonly outbox = operatorScope();
  private readonly inFlight = new Set<AbortController>();
  private readonly poller: PollingLoop;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {
    // A full batch means more may be due: go again without waiting.
    this.poller = new PollingLoop('webhook delivery', this.logger, config.workerPollMs, async () => (await this.runOnce()) >= BATCH_SIZE);
  }

  get policy(): RetryPolicy {
    return { ...WEBHOOK_BACKOFF, random: Math.random, maxAttempts: this.config.webhookMaxAttempts };
  }

  /** A crashed process's claims come back after this; longer than any single delivery. */
  get leaseMs(): number {
    return this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  onApplicationBootstrap(): void {
    if (this.config.workersEnabled && this.config.webhookUrl !== '') this.poller.start(this.schedules);
  }

  /** Stops claiming, then waits for deliveries in flight (they end by their timeout at the latest). */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.poller.isRunning) return;
    const stopped = this.poller.stop();
    const grace = new Promise<'late'>((r) => setTimeout(() => r('late'), this.config.webhookTimeoutMs + 1000).unref());
    if ((await Promise.race([stopped, grace])) === 'late') {
      // Unrecorded rows keep their lease and are retried by whichever process claims them next.
      for (const c of this.inFlight) c.abort();
      await stopped;
    }
  }

  /**
   * One round: claim the due events and deliver them. Returns how many were claimed. The loop
   * calls it; tests call it directly (workers are off in tests).
   */
  async runOnce(): Promise<number> {
    if (this.config.webhookUrl === '') return 0;
    const rows = await this.repo.claimDue(this.ds.manager, this.outbox, BATCH_SIZE, this.leaseMs);
    await Promise.all(rows.map((row) => this.deliver(row)));
    return rows.length;
  }

  private async deliver(row: WebhookEventRow): Promise<void> {
    await RequestContext.run({ requestId: `webhook:${row.id}`, tenantId: row.tenant_id }, async () => {
      const result = await observeWebhookPost(row, () => this.post(row));
      // Cut off by shutdown: not the receiver's fault; the row is retried when its lease ends.
      if (result === null) return;
      const attempts = row.attempts + 1;
      const step = nextDeliveryStep(result, attempts, this.policy);
      const recorded = await this.repo.recordAttempt(this.ds.manager, this.outbox, row.id, row.attempts, step);
      const meta = { event_id: row.id, event: row.event, attempts, status: step.status, status_code: step.statusCode };
      if (recorded) observeWebhookOutcome(step.status);
      if (!recorded) this.logger.warn(meta, 'webhook attempt not recorded: the row changed while it was being delivered');
      else if (step.status === 'dead_letter') this.logger.warn({ ...meta, error: step.error }, 'webhook event dead-lettered');
      else if (step.status === 'pending') this.logger.log({ ...meta, error: step.error, retry_in_ms: step.delayMs }, 'webhook delivery failed; will retry');
      else this.logger.debug(meta, 'webhook delivered');
    });
  }

  /** One POST of the stored body. Never throws: every outcome is a DeliveryResult (null: aborted at shutdown). */
  private async post(row: WebhookEventRow): Promise<DeliveryResult | null> {
    const timeoutMs = this.config.webhookTimeoutMs;
    // The stored jsonb reorders keys; rebuild the contract's {event, timestamp, data} order.
    const body = JSON.stringify(eventBodyOf(row));
    const sentAt = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Webhook-Event-Id': row.id,
      'X-Webhook-Event': row.event,
      'X-Webhook-Timestamp': String(sentAt),
    };
    if (row.tenant_id !== null) headers[TENANT_HEADER] = row.tenant_id;
    if (this.config.webhookSecret !== '') headers['X-Webhook-Signature'] = `sha256=${signPayload(this.config.webhookSecret, sentAt, body)}`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    this.inFlight.add(controller);
    try {
      // redirect 'manual': a signed event is not re-posted to wherever a 3xx points; the 3xx
      // itself is a permanent failure by the delivery policy.
      const res = await fetch(this.config.webhookUrl, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      // Only the status matters; release the connection without reading the answer.
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'response', status: res.status };
    } catch (err) {
      if (timedOut) return { kind: 'timeout', timeoutMs };
      if (controller.signal.aborted) return null;
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      return { kind: 'connection_error', message: cause?.code ?? cause?.message ?? (err as Error).message };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }
}
