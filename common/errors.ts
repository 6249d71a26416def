// The one error contract of the service: a stable code, its HTTP status, and whether retrying the
// same operation can succeed. Every non-2xx body is built from an AppError (see http/errors.ts).

export const errorCodes = {
  invalid_json: 400,
  invalid_body_encoding: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  snapshot_too_large: 413,
  validation_failed: 400,
  too_many_listings: 400,
  too_many_events: 400,
  all_listings_failed: 400,
  invalid_parameter: 400,
  idempotency_key_reused: 422,
  insufficient_comparables: 422,
  idempotency_in_progress: 409,
  listing_in_progress: 409,
  missing_api_key: 401,
  invalid_api_key: 401,
  revoked_api_key: 403,
  insufficient_tier: 403,
  insufficient_role: 403,
  key_rolled: 403,
  scope_exceeded: 403,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  quota_exceeded: 429,
  concurrency_limited: 429,
  limit_exceeded: 409,
  last_admin_key: 409,
  key_not_rollable: 409,
  dependency_unavailable: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof errorCodes;

export type ErrorDetail = object;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      details?: ErrorDetail[] | ErrorDetail;
      retriable?: boolean;
      retryAfterSeconds?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = errorCodes[code];
  }

  get retriable(): boolean {
    return this.options.retriable ?? (this.status === 429 || this.status >= 500);
  }
}

/** A failure of Kafka, ClickHouse or Redis that a caller may retry later. */
export function dependencyUnavailable(component: string, cause: unknown): AppError {
  return new AppError('dependency_unavailable', `${component} is unavailable; retry later`, {
    retriable: true,
    retryAfterSeconds: 5,
    cause,
    details: { component },
  });
}
