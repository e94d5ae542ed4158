import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, IsUUID } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import { eventBodyOf } from '../delivery-policy';
import type { WebhookEventStatus } from '../webhook-event.entity';
import type { WebhookEventRow } from '../webhooks.repository';

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

export class WebhookEventDto {
  /** The event id, also sent to receivers as `X-Webhook-Event-Id`. */
  id: string;
  tenant_id: string | null;
  /** Event name, e.g. `episode.created`. */
  event: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'dead_letter'] })
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
  /** The body sent to the receiver: `{event, timestamp, data}`; `data.tenant_id` names the event's tenant (null without tenants). */
  payload: { event: string; timestamp: string; data: Record<string, unknown> };
}

export function toWebhookEventDto(row: WebhookEventRow): WebhookEventDto {
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
    payload: eventBodyOf(row),
  };
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
