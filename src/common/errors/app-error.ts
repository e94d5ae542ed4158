import { ErrorCode } from './error-codes';

export interface FieldProblem {
  type: string;
  loc: (string | number)[];
  msg: string;
}

/** Services throw this; the global filter renders it as the contract's error envelope. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldProblem[] | Record<string, unknown> | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static notFound(message: string): AppError {
    return new AppError(ErrorCode.NotFound, message);
  }

  static validation(loc: (string | number)[], msg: string, type = 'value_error'): AppError {
    return new AppError(ErrorCode.ValidationError, 'Request validation failed', [{ type, loc, msg }]);
  }
}
