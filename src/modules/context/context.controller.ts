import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors } from 'src/common/http/api-errors.decorator';
import { ContextService } from './context.service';
import { ContextBundleDto, ContextRequestDto } from './dto/context.dto';
import { ContextExplanationDto } from './dto/context-explain.dto';

@ApiTags('context')
@ApiErrors()
@Controller('v1/context')
export class ContextController {
  constructor(private readonly context: ContextService) {}

  /**
   * Assemble a ranked, token-bounded context bundle for a task: scored by kind, recency, task
   * relevance and validity, packed into `max_tokens` (`token_estimate` never exceeds it). An
   * unknown subject gives a bundle with only the task section.
   */
  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ContextBundleDto })
  async assemble(@ReqCtx() ctx: Ctx, @Body() dto: ContextRequestDto, @Res() res: Response): Promise<void> {
    // Sent as text serialised while the receipt was being written (ContextService.assembleJson): a ContextBundleDto.
    res.status(200).type('application/json').send(await this.context.assembleJson(ctx, dto));
  }

  /**
   * Why a bundle holds what it holds: the bundle POST /v1/context would answer for this request
   * (same auth, tenant, policy and receipt rules), every candidate with its score components
   * (kind priority, recency, relevance, validity), whether it is in the bundle or left out and
   * why (budget, duplicate, policy_denied, no_section), and the token cost of each section.
   */
  @Post('explain')
  @HttpCode(200)
  @ApiOkResponse({ type: ContextExplanationDto })
  explain(@ReqCtx() ctx: Ctx, @Body() dto: ContextRequestDto): Promise<ContextExplanationDto> {
    return this.context.explain(ctx, dto);
  }
}
