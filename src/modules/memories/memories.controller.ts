import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiCreatedResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { CompileJobAcceptedDto, CompileJobDto, CompileRequestDto, CompileResultDto, JobIdParamDto } from './dto/compile.dto';
import { MemoryDto } from './dto/memory.dto';
import { CorrectMemoryDto, ForgetMemoryQueryDto, ForgetMemoryResultDto, MemoryIdParamDto, RememberMemoryDto } from './dto/memory-write.dto';
import { SetLabelsDto } from './dto/labels.dto';
import { MemoriesListDto, SearchMemoriesQueryDto } from './dto/search.dto';
import { CompileService } from './compile.service';
import { MemoriesService } from './memories.service';
import { MemoryRecordsService } from './memory-records.service';

@ApiTags('memories')
@ApiErrors()
@ApiExtraModels(CompileResultDto, CompileJobAcceptedDto)
@Controller('v1/memories')
export class MemoriesController {
  constructor(
    private readonly pipeline: CompileService,
    private readonly memories: MemoriesService,
    private readonly records: MemoryRecordsService,
  ) {}

  /**
   * Compile the subject's uncompiled episodes into memories, in one transaction. Idempotent:
   * a repeated call compiles only new episodes. Emits `memories.compiled`.
   */
  @Post('compile')
  @HttpCode(200)
  @ApiOkResponse({ description: 'Synchronous compile.', schema: { $ref: getSchemaPath(CompileResultDto) } })
  @ApiAcceptedResponse({ description: 'With `async: true`: the job to poll.', schema: { $ref: getSchemaPath(CompileJobAcceptedDto) } })
  async compile(@ReqCtx() ctx: Ctx, @Body() dto: CompileRequestDto, @Res({ passthrough: true }) res: Response): Promise<CompileResultDto | CompileJobAcceptedDto> {
    const result = await this.pipeline.compile(ctx, dto);
    if ('job_id' in result) res.status(202);
    return result;
  }

  /** Status of an asynchronous compile job; a completed job lists the memories it created. */
  @Get('compile/:job_id')
  @ApiOkResponse({ type: CompileJobDto })
  @ApiNotFoundResponse({ description: 'not_found: unknown job, or a job of another tenant.', type: ErrorEnvelopeDto })
  jobStatus(@ReqCtx() ctx: Ctx, @Param() params: JobIdParamDto): Promise<CompileJobDto> {
    return this.pipeline.jobStatus(ctx, params.job_id);
  }

  /**
   * Replace a memory's sensitivity labels (trimmed, lowercased, de-duplicated; at most 32, each
   * 1–64 characters of a-z 0-9 . _ : -); an empty list clears them. A tenant's policy bundle
   * can keep labelled memories from some callers (docs/governance.md).
   */
  @Patch(':id/labels')
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'not_found: unknown memory, or a memory of another tenant.', type: ErrorEnvelopeDto })
  setLabels(@ReqCtx() ctx: Ctx, @Param() params: MemoryIdParamDto, @Body() body: SetLabelsDto): Promise<MemoryDto> {
    return this.memories.setLabels(ctx, params.id, body.sensitivity_labels);
  }

  /** Search a subject's active memories by kind, by text, or semantically (cosine similarity). */
  @Get('search')
  @ApiOkResponse({ type: MemoriesListDto })
  search(@ReqCtx() ctx: Ctx, @Query() query: SearchMemoriesQueryDto): Promise<MemoriesListDto> {
    return this.memories.search(ctx, query);
  }

  /**
   * Remember one memory directly (provenance `origin: "api"`, no source episode). It supersedes
   * the subject's active memory it restates (same kind and attribute key, or the same content).
   * Emits `memory.created`.
   */
  @Post()
  @ApiCreatedResponse({ type: MemoryDto, description: 'The stored memory; with a repeated idempotency_key, the memory first stored under it.' })
  remember(@ReqCtx() ctx: Ctx, @Body() dto: RememberMemoryDto): Promise<MemoryDto> {
    return this.records.remember(ctx, dto);
  }

  /** One memory in any status: active, superseded (with valid_to) or tombstoned (content erased). */
  @Get(':id')
  @ApiOkResponse({ type: MemoryDto })
  @ApiNotFoundResponse({ description: 'not_found: unknown id, a hard-deleted memory, or a memory of another tenant.', type: ErrorEnvelopeDto })
  get(@ReqCtx() ctx: Ctx, @Param() params: MemoryIdParamDto): Promise<MemoryDto> {
    return this.records.get(ctx, params.id);
  }

  /**
   * Correct a memory: stores a new version that supersedes this one (which keeps its content and
   * gets `valid_to` and `status: "superseded"`) and returns the new version. Emits `memory.updated`.
   */
  @Patch(':id')
  @ApiOkResponse({ type: MemoryDto, description: 'The new version.' })
  @ApiNotFoundResponse({ description: 'not_found', type: ErrorEnvelopeDto })
  @ApiConflictResponse({ description: 'conflict: the memory is not the active version (details name its status and superseded_by).', type: ErrorEnvelopeDto })
  correct(@ReqCtx() ctx: Ctx, @Param() params: MemoryIdParamDto, @Body() dto: CorrectMemoryDto): Promise<MemoryDto> {
    return this.records.correct(ctx, params.id, dto);
  }

  /**
   * Forget a memory and the earlier versions it replaced: their content is erased for good and
   * tombstones keep id, kind, times and `status: "tombstoned"`; `?hard=true` removes the rows.
   * Emits `memory.deleted`.
   */
  @Delete(':id')
  @ApiOkResponse({ type: ForgetMemoryResultDto })
  @ApiNotFoundResponse({ description: 'not_found', type: ErrorEnvelopeDto })
  forget(@ReqCtx() ctx: Ctx, @Param() params: MemoryIdParamDto, @Query() query: ForgetMemoryQueryDto): Promise<ForgetMemoryResultDto> {
    return this.records.forget(ctx, params.id, query.hard === true);
  }
}
