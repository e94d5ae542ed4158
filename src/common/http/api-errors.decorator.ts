import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

export class ErrorBodyDto {
  @ApiProperty({ example: 'validation_error' }) code: string;
  @ApiProperty({ example: 'Request validation failed' }) message: string;
  @ApiProperty({ nullable: true, example: [{ type: 'isString', loc: ['body', 'subject_id'], msg: 'subject_id must be a string' }] })
  details: unknown;
  @ApiProperty({ example: '3f1c…' }) request_id: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorBodyDto }) error: ErrorBodyDto;
}

/** The error responses every /v1 route can give, documented once. */
export function ApiErrors(...extra: { status: number; description: string }[]) {
  const common = [
    { status: 401, description: 'missing_api_key' },
    { status: 403, description: 'invalid_api_key' },
    { status: 400, description: 'missing_tenant (when REQUIRE_TENANT is on)' },
    { status: 422, description: 'validation_error, with per-field details' },
    { status: 429, description: 'rate_limited, with Retry-After' },
    ...extra,
  ];
  return applyDecorators(...common.map((e) => ApiResponse({ status: e.status, description: e.description, type: ErrorEnvelopeDto })));
}
