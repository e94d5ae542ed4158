import { createParamDecorator } from '@nestjs/common';
import { currentCtx } from './request-context';

/** `@ReqCtx() ctx: Ctx` — the request id and tenant scope, read from the request context. */
export const ReqCtx = createParamDecorator(() => currentCtx());
