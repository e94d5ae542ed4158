import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { operatorScope } from 'src/common/db/tenant-scope';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { TenantOptional } from 'src/common/guards/public.decorator';
import { ApiErrors } from 'src/common/http/api-errors.decorator';
import {
  ListWebhookEventsQueryDto,
  RequeueDeadLettersDto,
  RequeueDeadLettersResultDto,
  WebhookEventDto,
  WebhookEventIdParamDto,
  WebhookEventListDto,
  WebhookStatsDto,
  WebhookStatsQueryDto,
} from './dto/webhook-admin.dto';
import { WebhooksService } from './webhooks.service';

/** Operator view of the webhook outbox. Needs the API key; filters by tenant, not restricted by it. */
@ApiTags('admin')
@ApiErrors()
@TenantOptional()
@Controller('admin/webhooks')
export class WebhooksAdminController {
  constructor(private readonly webhooks: WebhooksService) {}

  /**
   * Events newest first, without their payloads, by status, subject, event name and tenant;
   * keyset-paged (`limit` 1–200, default 50, and a byte budget), `next_cursor` continues.
   */
  @Get()
  @ApiOkResponse({ type: WebhookEventListDto })
  listEvents(@ReqCtx() ctx: Ctx, @Query() query: ListWebhookEventsQueryDto): Promise<WebhookEventListDto> {
    return this.webhooks.listEvents(ctx, operatorScope(query.tenant_id), query);
  }

  /** Events by delivery status (total = their sum) and the age of the oldest pending one. */
  @Get('stats')
  @ApiOkResponse({ type: WebhookStatsDto })
  stats(@ReqCtx() ctx: Ctx, @Query() query: WebhookStatsQueryDto): Promise<WebhookStatsDto> {
    return this.webhooks.stats(ctx, operatorScope(query.tenant_id));
  }

  /** Puts dead letters (all, or the listed ones) back in the queue with their attempts reset. */
  @Post('dead-letters/requeue')
  @HttpCode(200)
  @ApiOkResponse({ type: RequeueDeadLettersResultDto })
  requeue(@ReqCtx() ctx: Ctx, @Body() dto: RequeueDeadLettersDto): Promise<RequeueDeadLettersResultDto> {
    return this.webhooks.requeueDeadLetters(ctx, operatorScope(dto.tenant_id), dto);
  }

  /** Delivery status of one event. A malformed id is a 422, an unknown one a 404 `not_found`. */
  @Get(':event_id')
  @ApiOkResponse({ type: WebhookEventDto })
  @ApiErrors({ status: 404, description: 'not_found' })
  event(@ReqCtx() ctx: Ctx, @Param() params: WebhookEventIdParamDto): Promise<WebhookEventDto> {
    return this.webhooks.getEvent(ctx, operatorScope(), params.event_id);
  }
}
