import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { CompileJobAcceptedDto, CompileJobDto, CompileRequestDto, CompileResultDto, JobIdParamDto } from './dto/compile.dto';
import { MemoriesListDto, SearchMemoriesQueryDto } from './dto/search.dto';
import { MemoriesService } from './memories.service';

@ApiTags('memories')
@ApiErrors()
@ApiExtraModels(CompileResultDto, CompileJobAcceptedDto)
@Controller('v1/memories')
export class MemoriesController {
  constructor(private readonly memories: MemoriesService) {}

  /**
   * Compile the subject's uncompiled episodes into memories, in one transaction. Idempotent:
   * a repeated call compiles only new episodes. Emits `memories.compiled`.
   */
  @Post('compile')
  @HttpCode(200)
  @ApiOkResponse({ description: 'Synchronous compile.', schema: { $ref: getSchemaPath(CompileResultDto) } })
  @ApiAcceptedResponse({ description: 'With `async: true`: the job to poll.', schema: { $ref: getSchemaPath(CompileJobAcceptedDto) } })
  async compile(@ReqCtx() ctx: Ctx, @Body() dto: CompileRequestDto, @Res({ passthrough: true }) res: Response): Promise<CompileResultDto | CompileJobAcceptedDto> {
    const result = await this.memories.compile(ctx, dto);
    if ('job_id' in result) res.status(202);
    return result;
  }

  /** Status of an asynchronous compile job; a completed job lists the memories it created. */
  @Get('compile/:job_id')
  @ApiOkResponse({ type: CompileJobDto })
  @ApiNotFoundResponse({ description: 'not_found: unknown job, or a job of another tenant.', type: ErrorEnvelopeDto })
  jobStatus(@ReqCtx() ctx: Ctx, @Param() params: JobIdParamDto): Promise<CompileJobDto> {
    return this.memories.jobStatus(ctx, params.job_id);
  }

  /** Search a subject's active memories by kind, by text, or semantically (cosine similarity). */
  @Get('search')
  @ApiOkResponse({ type: MemoriesListDto })
  search(@ReqCtx() ctx: Ctx, @Query() query: SearchMemoriesQueryDto): Promise<MemoriesListDto> {
    return this.memories.search(ctx, query);
  }
}
