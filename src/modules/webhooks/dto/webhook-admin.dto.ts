import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { eventBodyOf } from '../delivery-policy';
import { WEBHOOK_EVENT_STATUSES } from '../webhook-event.entity';
import type { WebhookEventStatus } from '../webhook-event.entity';
import type { WebhookEventListRow, WebhookEventRow } from '../webhooks.repository';

/** GET /admin/webhooks: events per page when `limit` is absent, and the most a page may ask for. */
export const WEBHOOK_LIST_DEFAULT_LIMIT = 50;
export const WEBHOOK_LIST_MAX_LIMIT = 200;

export class WebhookStatsQueryDto {
  /** Count only this tenant's events (operator filter; NULL-tenant rows are then excluded). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}

export class WebhookStatsDto {
  pending: number;
  delivered: number;
  dead_letter: number;
  /** pending + delivered + dead_letter. */
  total: number;
  /** Age of the oldest event still waiting for delivery; null when none is pending. */
  oldest_pending_age_seconds: number | null;
}

export class WebhookEventIdParamDto {
  @IsUUID('all')
  event_id: string;
}

/** An event as GET /admin/webhooks lists it: its delivery state without the payload (GET /admin/webhooks/{event_id} has it). */
export class WebhookEventSummaryDto {
  /** The event id, also sent to receivers as `X-Webhook-Event-Id`. */
  id: string;
  tenant_id: string | null;
  /** Event name, e.g. `episode.created`. */
  event: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_STATUSES })
  status: WebhookEventStatus;
  /** Delivery attempts made so far. */
  attempts: number;
  last_error: string | null;
  /** HTTP status of the last answer; null when the last attempt got none (timeout, connection error). */
  last_status_code: number | null;
  /** When the next attempt is due; null unless pending. */
  next_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

export class WebhookEventDto extends WebhookEventSummaryDto {
  /** The body sent to the receiver: `{event, timestamp, data}`; `data.tenant_id` names the event's tenant (null without tenants). */
  payload: { event: string; timestamp: string; data: Record<string, unknown> };
}

export function toWebhookEventSummaryDto(row: WebhookEventListRow): WebhookEventSummaryDto {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    last_status_code: row.last_status_code,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

export function toWebhookEventDto(row: WebhookEventRow): WebhookEventDto {
  // The listing's item, then the payload: one mapping, keys in the same order.
  return { ...toWebhookEventSummaryDto(row), payload: eventBodyOf(row) };
}

export class RequeueDeadLettersDto {
  /** Dead letters to put back in the queue; all of them (in the tenant filter) when absent. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsUUID('all', { each: true })
  event_ids?: string[];

  /** Only this tenant's dead letters. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;
}

export class RequeueDeadLettersResultDto {
  /** How many dead letters are pending again. */
  requeued: number;
}

export class ListWebhookEventsQueryDto {
  /** Only events in this delivery status. */
  @IsOptional()
  @IsIn(WEBHOOK_EVENT_STATUSES)
  @ApiProperty({ enum: WEBHOOK_EVENT_STATUSES, required: false })
  status?: WebhookEventStatus;

  /** Only events whose data names this subject (`data.subject_id`, or one of `data.subject_ids`). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  subject_id?: string;

  /** Only events of this name, e.g. `episode.created`. */
  @IsOptional()
  @IsString()
  @Length(1, 64)
  event?: string;

  /** Only this tenant's events (operator filter; NULL-tenant rows are then excluded). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be a next_cursor value' })
  cursor?: string;

  /** 1–200, default 50. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_LIST_MAX_LIMIT)
  limit: number = WEBHOOK_LIST_DEFAULT_LIMIT;
}

export class WebhookEventListDto {
  /** Newest first (creation time, then id). */
  @ApiProperty({ type: [WebhookEventSummaryDto] })
  events: WebhookEventSummaryDto[];
  /** Pass as `cursor` for the next page; null on the last one. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor: string | null;
}
