import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { refuseReservedSubjects } from 'src/common/auth/reserved-subjects';
import { RequestContext } from 'src/common/context/request-context';
import { AppError, FieldProblem } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { fastBody } from './fast-body';
import { findJsonProblem } from './json-safety';

class ValidationFailure extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('validation failed');
  }
}

function flatten(errors: ValidationError[], loc: (string | number)[]): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const here = e.property === undefined ? loc : [...loc, /^\d+$/.test(e.property) ? Number(e.property) : e.property];
    for (const [type, msg] of Object.entries(e.constraints ?? {})) out.push({ type, loc: here, msg });
    if (e.children?.length) out.push(...flatten(e.children, here));
  }
  return out;
}

/**
 * class-validator through Nest's pipe, with the contract's error shape: 422 `validation_error`,
 * message `Request validation failed`, details `{type, loc, msg}` where loc starts with
 * body/query/path. Unknown fields are stripped, not refused (compat.md).
 */
@Injectable()
export class AppValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: false,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ValidationFailure(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const where = metadata.type === 'param' ? 'path' : metadata.type === 'custom' ? 'body' : metadata.type;
    const problem = findJsonProblem(value, [where]);
    if (problem) throw new AppError(ErrorCode.ValidationError, 'Request validation failed', [problem]);
    if (where === 'body' && metadata.metatype && metadata.metatype !== Object && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw AppError.validation(['body'], 'a JSON object is required', 'model_attributes_type');
    }
    // Valid bodies of simple DTOs (episodes, batches) skip the generic walk; anything else, and
    // every invalid body, goes through the full pipe for its exact errors (fast-body.ts).
    let valid: unknown = metadata.type === 'body' && metadata.metatype ? fastBody(metadata.metatype, value) : null;
    if (valid === null) {
      try {
        valid = await super.transform(value, metadata);
      } catch (err) {
        if (err instanceof ValidationFailure) {
          throw new AppError(ErrorCode.ValidationError, 'Request validation failed', flatten(err.errors, [where]));
        }
        throw err;
      }
    }
    // Every client-facing input (REST and MCP tool arguments) passes here: the one place the
    // reserved snapshot namespace is closed to client-role keys.
    refuseReservedSubjects(valid, RequestContext.current()?.principal);
    return valid;
  }
}
