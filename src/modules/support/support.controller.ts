import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors } from 'src/common/http/api-errors.decorator';
import { HandoffPackDto, HandoffRequestDto } from './dto/handoff.dto';
import { SubjectParamDto } from 'src/modules/subjects/dto/subjects.dto';
import { HealthHistoryDto, HealthHistoryQueryDto } from './dto/health-history.dto';
import { HealthResultDto } from './dto/health.dto';
import { ListResolutionsQueryDto, ResolutionDto, UpsertResolutionDto } from './dto/resolution.dto';
import { SlaQueryDto, SlaResultDto } from './dto/sla.dto';
import { SupportService } from './support.service';

/** Support-desk endpoints: resolutions per session, customer health, SLA and escalation handoff. */
@ApiTags('support')
@ApiErrors()
@Controller('v1')
export class SupportController {
  constructor(private readonly support: SupportService) {}

  /**
   * Create or update the resolution record of (subject_id, session_id); the id is kept. Health
   * is recomputed in the same transaction and a state change emits `subject.health_*`.
   */
  @Post('resolutions')
  @HttpCode(200)
  @ApiOkResponse({ type: ResolutionDto })
  upsertResolution(@ReqCtx() ctx: Ctx, @Body() dto: UpsertResolutionDto): Promise<ResolutionDto> {
    return this.support.upsertResolution(ctx, dto);
  }

  /** The subject's resolution records as a bare array, newest `updated_at` first. */
  @Get('resolutions')
  @ApiOkResponse({ type: [ResolutionDto] })
  listResolutions(@ReqCtx() ctx: Ctx, @Query() query: ListResolutionsQueryDto): Promise<ResolutionDto[]> {
    return this.support.listResolutions(ctx, query);
  }

  /** Health score 0–100 with its factors; an unknown subject scores 100 (healthy, no factors). */
  @Get('subjects/:subject_id/health')
  @ApiOkResponse({ type: HealthResultDto })
  health(@ReqCtx() ctx: Ctx, @Param() params: SubjectParamDto): Promise<HealthResultDto> {
    return this.support.health(ctx, params.subject_id);
  }

  /**
   * The subject's health over time, oldest first: a point each time a recomputation changed the
   * score or state (the newest 200 are kept). Another tenant's or an unknown subject has none.
   */
  @Get('subjects/:subject_id/health/history')
  @ApiOkResponse({ type: HealthHistoryDto })
  healthHistory(@ReqCtx() ctx: Ctx, @Param() params: SubjectParamDto, @Query() query: HealthHistoryQueryDto): Promise<HealthHistoryDto> {
    return this.support.healthHistory(ctx, params.subject_id, query.limit);
  }

  /** First-response and resolution figures per session; an unknown subject has zero sessions. */
  @Get('subjects/:subject_id/sla')
  @ApiOkResponse({ type: SlaResultDto })
  sla(@ReqCtx() ctx: Ctx, @Param() params: SubjectParamDto, @Query() query: SlaQueryDto): Promise<SlaResultDto> {
    return this.support.sla(ctx, params.subject_id, query);
  }

  /** Escalation pack for a session, with a markdown brief cut to `max_tokens`. */
  @Post('handoff')
  @HttpCode(200)
  @ApiOkResponse({ type: HandoffPackDto })
  handoff(@ReqCtx() ctx: Ctx, @Body() dto: HandoffRequestDto): Promise<HandoffPackDto> {
    return this.support.handoff(ctx, dto);
  }
}
