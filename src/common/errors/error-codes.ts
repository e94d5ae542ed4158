/** Every error code the API answers with, and its HTTP status (one table, used by the filter). */
export enum ErrorCode {
  ValidationError = 'validation_error',
  MissingApiKey = 'missing_api_key',
  InvalidApiKey = 'invalid_api_key',
  Forbidden = 'forbidden',
  InvalidEncoding = 'invalid_encoding',
  RateLimited = 'rate_limited',
  MissingTenant = 'missing_tenant',
  NotFound = 'not_found',
  Conflict = 'conflict',
  InternalError = 'internal_error',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  ServiceUnavailable = 'service_unavailable',
  UnsupportedFormatVersion = 'unsupported_format_version',
  ChecksumMismatch = 'checksum_mismatch',
  IdConflict = 'id_conflict',
  InvalidDocument = 'invalid_document',
  CallerIdentityRequired = 'caller_identity_required',
  InvalidPolicy = 'invalid_policy',
  UnreplayableMissingPolicySnapshot = 'unreplayable.missing_policy_snapshot',
  UnreplayableNestedReplay = 'unreplayable.nested_replay',
  UnreplayableInvalidSnapshot = 'unreplayable.invalid_snapshot',
}

export const ERROR_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.ValidationError]: 422,
  [ErrorCode.MissingApiKey]: 401,
  [ErrorCode.InvalidApiKey]: 403,
  // A valid key asking for more than its role or tenant allows (docs/operations.md "Security model").
  [ErrorCode.Forbidden]: 403,
  // compat.md: invalid UTF-8 in a JSON body is a 400.
  [ErrorCode.InvalidEncoding]: 400,
  [ErrorCode.RateLimited]: 429,
  // compat.md: a missing tenant header is a 400.
  [ErrorCode.MissingTenant]: 400,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.ServiceUnavailable]: 503,
  // compat.md: import rejections are 400s, each with its own code.
  [ErrorCode.UnsupportedFormatVersion]: 400,
  [ErrorCode.ChecksumMismatch]: 400,
  [ErrorCode.IdConflict]: 400,
  [ErrorCode.InvalidDocument]: 400,
  // docs/governance.md: a policy that requires a caller identity refuses an anonymous read.
  [ErrorCode.CallerIdentityRequired]: 401,
  [ErrorCode.InvalidPolicy]: 422,
  [ErrorCode.UnreplayableMissingPolicySnapshot]: 422,
  [ErrorCode.UnreplayableNestedReplay]: 422,
  [ErrorCode.UnreplayableInvalidSnapshot]: 422,
};
