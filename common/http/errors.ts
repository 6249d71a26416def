// The one error middleware: every non-2xx response has the same JSON shape (docs/api-decisions.md, "Errors").
import type { NextFunction, Request, Response } from 'express';
import { isRedisUnavailable } from '../clients/redis-errors.ts';
import { AppError, dependencyUnavailable } from '../errors.ts';
import type { Logger } from '../logger.ts';

export interface ErrorBody {
  error: { code: string; message: string; request_id: string; retriable: boolean; details?: unknown };
}

export function errorBody(error: AppError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      retriable: error.retriable,
      ...(error.options.details === undefined ? {} : { details: error.options.details }),
    },
  };
}

export function sendError(res: Response, req: Request, error: AppError): void {
  if (error.options.retryAfterSeconds !== undefined) {
    res.setHeader('Retry-After', String(error.options.retryAfterSeconds));
  }
  res.status(error.status).json(errorBody(error, req.requestId));
}

export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new AppError('not_found', `No endpoint ${req.method} ${req.path}; see /api/v1/openapi.json`));
}

/** Express error middleware: known errors keep their code; anything else is logged and hidden. */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let appError: AppError | undefined;
    if (error instanceof AppError) {
      appError = error;
    } else if (isBodyParserError(error)) {
      appError = fromBodyParser(error);
    } else if (isRedisUnavailable(error)) {
      appError = dependencyUnavailable('redis', error);
    }
    if (!appError) {
      logger.error('unhandled error', {
        request_id: req.requestId,
        path: req.path,
        error: error instanceof Error ? error.stack : String(error),
      });
      appError = new AppError(
        'internal_error',
        'Internal server error; the request id identifies it in our logs',
      );
    }
    if (appError.status >= 500 && appError.code !== 'internal_error') {
      logger.warn('request failed', {
        request_id: req.requestId,
        code: appError.code,
        cause: String(appError.cause),
      });
    }
    if (res.headersSent) return;
    sendError(res, req, appError);
  };
}

interface BodyParserError {
  type: BodyParserErrorType;
  status: number;
  limit?: number;
}

// The `type` values raw-body and body-parser give their errors (http-errors with a numeric status).
// Matched exactly: other libraries tag errors with a string `type` too (fetch's "system", …), and
// those are our failures, to be logged and answered 500, not blamed on the client's JSON.
const bodyParserErrorTypes = [
  'entity.too.large',
  'entity.parse.failed',
  'entity.verify.failed',
  'encoding.unsupported',
  'charset.unsupported',
  'request.aborted',
  'request.size.invalid',
  'stream.encoding.set',
  'stream.not.readable',
] as const;
type BodyParserErrorType = (typeof bodyParserErrorTypes)[number];

function isBodyParserError(error: unknown): error is BodyParserError {
  if (!(error instanceof Error)) return false;
  const { type, status } = error as { type?: unknown; status?: unknown };
  return typeof status === 'number' && (bodyParserErrorTypes as readonly unknown[]).includes(type);
}

function fromBodyParser(error: BodyParserError): AppError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', `Request body exceeds the limit of ${error.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Request body must be UTF-8 JSON');
    case 'entity.parse.failed':
    case 'entity.verify.failed':
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('invalid_json', 'Request body could not be read');
    default:
      // stream.encoding.set / stream.not.readable: a bug of ours (the stream was consumed before).
      return undefined;
  }
}
