// The one error middleware: every non-2xx response has the same JSON shape (README, "Errors").
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.ts';
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
    let appError: AppError;
    if (error instanceof AppError) {
      appError = error;
    } else if (isBodyParserError(error)) {
      appError = fromBodyParser(error);
    } else {
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
  type: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string'
  );
}

function fromBodyParser(error: BodyParserError): AppError {
  switch (error.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', `Request body exceeds the limit of ${error.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Request body must be UTF-8 JSON');
    default:
      return new AppError('invalid_json', 'Request body could not be read');
  }
}
