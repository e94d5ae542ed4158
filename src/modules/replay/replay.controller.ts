import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { ReceiptIdParamDto } from 'src/modules/receipts/dto/receipt.dto';
import { ReplayRequestDto, ReplayResultDto } from './dto/replay.dto';
import { ReplayService } from './replay.service';

@ApiTags('receipts')
@ApiErrors()
@Controller('v1/receipts')
export class ReplayController {
  constructor(private readonly replay: ReplayService) {}

  /**
   * Re-runs the receipt's request (same subject, task, budget, session, caller) under the policy
   * frozen in its `policy_snapshot`, writes a new receipt (`mode: "as_of_replay"`,
   * `parent_receipt_id` = this one) and answers the structural difference. The original never changes.
   */
  @Post(':receipt_id/replay')
  @HttpCode(200)
  @ApiOkResponse({ type: ReplayResultDto })
  @ApiNotFoundResponse({ description: 'not_found: unknown receipt, or a receipt of another tenant.', type: ErrorEnvelopeDto })
  @ApiUnprocessableEntityResponse({
    description: '`unreplayable.missing_policy_snapshot`, `unreplayable.nested_replay` (the receipt is itself a replay), `unreplayable.invalid_snapshot`, or `validation_error` (as_of in the future).',
    type: ErrorEnvelopeDto,
  })
  replayReceipt(@ReqCtx() ctx: Ctx, @Param() params: ReceiptIdParamDto, @Body() body: ReplayRequestDto): Promise<ReplayResultDto> {
    return this.replay.replay(ctx, params.receipt_id, body);
  }
}
