// JSON body reader with the checks the spec and our security rules need: Content-Type, size,
// syntax, nesting depth and prototype-pollution keys, each answered with a specific 4xx.
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request body bytes as received (for Idempotency-Key body comparison). */
    rawBody?: Buffer;
  }
}

export const MAX_JSON_DEPTH = 32;
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

export function jsonBody(limitBytes: number) {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!['POST', 'PUT', 'PATCH'].includes(req.method)) return next();
    const contentType = req.get('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      return next(
        new AppError(
          'unsupported_media_type',
          `Content-Type must be application/json, got "${contentType || 'none'}"`,
        ),
      );
    }
    raw(req, res, (error?: unknown) => {
      if (error) return next(error);
      try {
        const bytes: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        req.rawBody = bytes;
        req.body = parseJsonSafely(bytes.toString('utf8'));
        next();
      } catch (parseError) {
        next(parseError);
      }
    });
  };
}

export function parseJsonSafely(text: string): unknown {
  if (text.trim() === '')
    throw new AppError('invalid_json', 'Request body is empty; a JSON object is required');
  const depth = maxNestingDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    throw new AppError(
      'invalid_json',
      `JSON nesting depth ${depth} exceeds the maximum of ${MAX_JSON_DEPTH}`,
    );
  }
  let value: unknown;
  try {
    // The reviver only runs when a dangerous key name appears in the text at all (cheap fast path).
    value = mayContainForbiddenKey(text) ? JSON.parse(text, rejectForbiddenKeys) : JSON.parse(text);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`);
  }
  return value;
}

function mayContainForbiddenKey(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('prototype');
}

function rejectForbiddenKeys(this: unknown, key: string, value: unknown): unknown {
  if (forbiddenKeys.has(key) && this !== null && typeof this === 'object' && !Array.isArray(this)) {
    throw new AppError('invalid_json', `JSON key "${key}" is not allowed`);
  }
  return value;
}

/** Deepest bracket nesting outside strings, in one pass over the text. */
export function maxNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}
