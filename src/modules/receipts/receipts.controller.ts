import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { ListReceiptsQueryDto, ReceiptDto, ReceiptIdParamDto, ReceiptListDto, ReceiptVerdictDto } from './dto/receipt.dto';
import { ReceiptsService } from './receipts.service';

/** State-assembly receipts of context and handoff calls (docs/governance.md). */
@ApiTags('receipts')
@ApiErrors()
@Controller('v1/receipts')
export class ReceiptsController {
  constructor(private readonly receipts: ReceiptsService) {}

  /** Receipts newest first, by subject and creation time, cursor-paginated (`limit` 1–200, default 50). */
  @Get()
  @ApiOkResponse({ type: ReceiptListDto })
  list(@ReqCtx() ctx: Ctx, @Query() query: ListReceiptsQueryDto): Promise<ReceiptListDto> {
    return this.receipts.list(ctx, query);
  }

  /** One receipt; 404 for an unknown id and for another tenant's alike. */
  @Get(':receipt_id')
  @ApiOkResponse({ type: ReceiptDto })
  @ApiNotFoundResponse({ description: 'not_found', type: ErrorEnvelopeDto })
  get(@ReqCtx() ctx: Ctx, @Param() params: ReceiptIdParamDto): Promise<ReceiptDto> {
    return this.receipts.get(ctx, params.receipt_id);
  }

  /** Checks the receipt's signature with the configured keys: ok, signature_mismatch, no_signature, key_unavailable or unsupported_algorithm. */
  @Get(':receipt_id/verify')
  @ApiOkResponse({ type: ReceiptVerdictDto })
  @ApiNotFoundResponse({ description: 'not_found', type: ErrorEnvelopeDto })
  verify(@ReqCtx() ctx: Ctx, @Param() params: ReceiptIdParamDto): Promise<ReceiptVerdictDto> {
    return this.receipts.verify(ctx, params.receipt_id);
  }
}
