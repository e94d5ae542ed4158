import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { COUNT, entityRow, ID_ROW, NO_ROWS, rowOf } from 'src/common/db/row-shape';
import { keysetPageResult, keysetPageShape, keysetPageSql } from 'src/common/db/keyset-page';
import { raw, sql } from 'src/common/db/sql';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { columnList } from 'src/db/column-types';
import { WEBHOOK_EVENT_ROW, WebhookEventEntity } from './webhook-event.entity';
import type { WebhookEventStatus } from './webhook-event.entity';

export interface NewWebhookEvent {
  event: string;
  payload: { event: string; timestamp: string; data: Record<string, unknown> };
}

export type WebhookEventRow = typeof WEBHOOK_EVENT_ROW.row;

/** What a delivery attempt turns the row into (see delivery-policy.nextDeliveryStep). */
export type DeliveryOutcome =
  | { status: 'delivered'; statusCode: number }
  | { status: 'dead_letter'; statusCode: number | null; error: string }
  | { status: 'pending'; statusCode: number | null; error: string; delayMs: number };

export interface WebhookCounts {
  pending: number;
  delivered: number;
  dead_letter: number;
  oldest_pending_age_seconds: number | null;
}

/** What the listing reads of an event: everything but the payload and the lease. */
const LIST_ROW = entityRow(WebhookEventEntity, [
  'id', 'tenant_id', 'event', 'status', 'attempts', 'next_attempt_at', 'last_error', 'last_status_code', 'created_at', 'delivered_at',
] as const);
const LIST_PAGE_ROW = keysetPageShape(LIST_ROW);
export type WebhookEventListRow = typeof LIST_ROW.row;

/** A page position of the listing: the last event shown (created_at as text with microseconds, and its id). */
export interface WebhookEventCursor {
  at: string;
  id: string;
}

export interface WebhookEventPageQuery {
  status?: WebhookEventStatus;
  subjectId?: string;
  event?: string;
  /** Continue with the events older than this one. */
  before: WebhookEventCursor | null;
  limit: number;
  maxBytes: number;
}

const COLUMNS = raw(columnList(WEBHOOK_EVENT_ROW.columns));
/** Pending and dead letters with the backlog's age; delivered events are counted apart (counts()). */
const OPEN_COUNTS_ROW = rowOf<Omit<WebhookCounts, 'delivered'>>({ pending: true, dead_letter: true, oldest_pending_age_seconds: true });

@Injectable()
export class WebhooksRepository extends TenantScopedRepository {
  protected readonly table = 'webhook_events';

  /**
   * created_at is the wall clock at insert, not the transaction start (now()), so events of
   * concurrent transactions are ordered as they happened, and a batch keeps its order.
   */
  async insert(em: DbHandle, scope: AnyScope, rows: NewWebhookEvent[]): Promise<void> {
    if (rows.length === 0) return;
    await this.stamped(em, scope, NO_ROWS, (tenantId) => sql`
      INSERT INTO webhook_events (tenant_id, event, payload, created_at, next_attempt_at)
      SELECT ${tenantId}, e.item->>'event', e.item->'payload', clock_timestamp(), clock_timestamp()
      FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS e(item, ord)
      ORDER BY e.ord`);
  }

  /**
   * Erasure of a subject (DELETE /v1/subjects/{id}): events whose data names only this subject
   * are deleted whatever their status (a delivered payload still holds the id); a batch event
   * naming several subjects keeps the others. Returns the number of events deleted or rewritten.
   */
  async forgetSubject(em: DbHandle, scope: TenantScope, subjectId: string): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH gone AS (
        DELETE FROM webhook_events WHERE ${t()}
          AND (payload->'data'->>'subject_id' = ${subjectId} OR payload->'data'->'subject_ids' = jsonb_build_array(${subjectId}::text))
        RETURNING 1),
      trimmed AS (
        UPDATE webhook_events SET payload = jsonb_set(payload, '{data,subject_ids}', (payload->'data'->'subject_ids') - ${subjectId}::text)
        WHERE ${t()} AND payload->'data'->'subject_ids' ? ${subjectId}::text AND jsonb_array_length(payload->'data'->'subject_ids') > 1
        RETURNING 1)
      SELECT ((SELECT count(*) FROM gone) + (SELECT count(*) FROM trimmed))::int AS n`);
    return rows[0].n;
  }

  /**
   * Claims up to `limit` due events for this process: the lease (locked_until) hides them from
   * other workers; SKIP LOCKED lets concurrent claims pass each other instead of queueing, and
   * a claim whose lease ran out (its process died) is taken again.
   */
  async claimDue(em: DbHandle, scope: OperatorScope, limit: number, leaseMs: number): Promise<WebhookEventRow[]> {
    return this.scoped(em, scope, WEBHOOK_EVENT_ROW, (t) => sql`
      -- Wrapped so the batch comes back oldest first (UPDATE … RETURNING has no order).
      -- MATERIALIZED: the LIMIT picks ids once; a rescanned IN (subquery), as the planner may
      -- choose under row-level security, would lease a new batch on every rescan.
      WITH picked AS MATERIALIZED (
        SELECT id FROM webhook_events
        WHERE ${t()} AND status = 'pending' AND next_attempt_at <= now()
          AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
      UPDATE webhook_events SET locked_until = now() + make_interval(secs => ${leaseMs / 1000})
      WHERE id IN (SELECT id FROM picked)
      RETURNING ${COLUMNS})
      SELECT * FROM claimed ORDER BY next_attempt_at`);
  }

  /**
   * Records one attempt. The `attempts` guard makes a late writer (whose lease expired and whose
   * row another worker already retried) a no-op instead of overwriting the newer result.
   */
  async recordAttempt(em: DbHandle, scope: OperatorScope, id: string, attemptsBefore: number, outcome: DeliveryOutcome): Promise<boolean> {
    const error = outcome.status === 'delivered' ? null : outcome.error;
    const delayMs = outcome.status === 'pending' ? outcome.delayMs : 0;
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      UPDATE webhook_events SET
        attempts = attempts + 1,
        status = ${outcome.status},
        last_status_code = ${outcome.statusCode},
        last_error = ${error},
        next_attempt_at = CASE WHEN ${outcome.status} = 'pending' THEN now() + make_interval(secs => ${delayMs / 1000}) ELSE next_attempt_at END,
        delivered_at = CASE WHEN ${outcome.status} = 'delivered' THEN now() ELSE delivered_at END,
        locked_until = NULL
      WHERE ${t()} AND id = ${id} AND status = 'pending' AND attempts = ${attemptsBefore}
      RETURNING id`);
    return rows.length === 1;
  }

  async findById(em: DbHandle, scope: OperatorScope, id: string): Promise<WebhookEventRow | null> {
    const rows = await this.scoped(em, scope, WEBHOOK_EVENT_ROW, (t) => sql`SELECT ${COLUMNS} FROM webhook_events WHERE ${t()} AND id = ${id}`);
    return rows[0] ?? null;
  }

  /**
   * One page of events newest first, (created_at, id) descending, after `before`, bounded by
   * `limit` and `maxBytes` as every keyset page is (keysetPageSql). A row's size is its text
   * columns plus a fixed 256 bytes for the rest of its JSON: the payload is not listed, so no row
   * is large, but a page of long connection errors still stays bounded.
   * The subject filter reads the payload (no index): it narrows what an operator reads, it is
   * not a hot path; a status filter of pending or dead letters is served by ix_webhook_events_due.
   */
  async page(em: DbHandle, scope: OperatorScope, q: WebhookEventPageQuery): Promise<{ rows: WebhookEventListRow[]; last: WebhookEventCursor | null; more: boolean }> {
    const where = [
      ...(q.status !== undefined ? [sql`c.status = ${q.status}`] : []),
      ...(q.event !== undefined ? [sql`c.event = ${q.event}`] : []),
      ...(q.subjectId !== undefined ? [sql`(c.payload->'data'->>'subject_id' = ${q.subjectId} OR c.payload->'data'->'subject_ids' ? ${q.subjectId}::text)`] : []),
    ];
    const rows = await this.scoped(em, scope, LIST_PAGE_ROW, (t) =>
      keysetPageSql(t, {
        table: 'webhook_events',
        key: { column: 'id', type: 'uuid' },
        bytes: raw(`256 + octet_length(c.event) + octet_length(coalesce(c.last_error, '')) + octet_length(coalesce(c.tenant_id, ''))`),
        where,
        descending: true,
        after: q.before ? { at: q.before.at, key: q.before.id } : null,
        limit: q.limit,
        maxBytes: q.maxBytes,
        select: raw(columnList(LIST_ROW.columns, 'x')),
      }),
    );
    const page = keysetPageResult(rows);
    return { rows: page.rows, last: page.last ? { at: page.last.at, id: page.last.key } : null, more: page.more };
  }

  /**
   * Cheap enough for every scrape: pending and dead letters are counted through
   * ix_webhook_events_due (status leads it), so the cost follows the backlog and the dead-letter
   * queue, not the outbox; delivered events, most of the table, are read from
   * webhook_event_counts, which triggers keep (migration 0015).
   */
  async counts(em: DbHandle, scope: OperatorScope): Promise<WebhookCounts> {
    const [open] = await this.scoped(em, scope, OPEN_COUNTS_ROW, (t) => sql`
      SELECT
        count(*) FILTER (WHERE status = 'pending')::int AS pending,
        count(*) FILTER (WHERE status = 'dead_letter')::int AS dead_letter,
        extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'pending'))::float8 AS oldest_pending_age_seconds
      FROM webhook_events WHERE ${t()} AND status IN ('pending', 'dead_letter')`);
    const [delivered] = await this.scoped(em, scope, COUNT, (t) => sql`
      SELECT coalesce(sum(delivered), 0)::int AS n FROM webhook_event_counts WHERE ${t()}`);
    return { ...open, delivered: delivered.n };
  }

  /**
   * Deletes up to `limit` events of `status` (delivered or dead_letter) whose last attempt is
   * older than `olderThanDays`, in one short statement; returns how many. Rows are chosen with
   * SKIP LOCKED, so a prune never waits on (or blocks) a worker or a redrive holding a row.
   * next_attempt_at is when the last attempt became due, never after the attempt itself (a row
   * is only claimed once due), so it bounds delivered_at from below and lets the due index
   * find candidates; delivered events are then cut at their delivered_at exactly.
   */
  async pruneBatch(em: DbHandle, scope: OperatorScope, status: 'delivered' | 'dead_letter', olderThanDays: number, limit: number): Promise<number> {
    const cutoff = sql`now() - make_interval(secs => ${olderThanDays * 86_400})`;
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH gone AS (
        DELETE FROM webhook_events WHERE id IN (
          SELECT id FROM webhook_events
          WHERE ${t()} AND status = ${status} AND next_attempt_at < ${cutoff}
            ${status === 'delivered' ? sql`AND delivered_at < ${cutoff}` : raw('')}
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    return rows[0].n;
  }

  /**
   * Puts dead letters back in the queue as if new (attempts 0, due now). The last error and
   * status code stay until the next attempt replaces them, so the operator still sees why.
   * `ids` null means every dead letter in scope; `limit` bounds one statement (the CLI batches).
   */
  async requeueDead(em: DbHandle, scope: OperatorScope, ids: string[] | null, limit: number | null = null): Promise<string[]> {
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      UPDATE webhook_events SET status = 'pending', attempts = 0, next_attempt_at = now(), locked_until = NULL
      WHERE ${t()} AND id IN (
        SELECT id FROM webhook_events
        WHERE ${t()} AND status = 'dead_letter' ${ids === null ? raw('') : sql`AND id = ANY(${ids}::uuid[])`}
        ORDER BY created_at
        ${limit === null ? raw('') : sql`LIMIT ${limit}`}
        FOR UPDATE SKIP LOCKED)
      RETURNING id`);
    return rows.map((r) => r.id);
  }
}
