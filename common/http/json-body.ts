// JSON body reader with the checks the spec and our security rules need: Content-Type,
// Content-Encoding, size (after decompression), syntax, nesting depth and prototype-pollution keys,
// each answered with a specific 4xx.
// Mounted per route, after authenticate and requirePermission, never app-wide: a request without a
// valid key, or to an unknown route, is answered before a byte of its body is read or parsed, and
// routes that take no body (POST /webhooks/{id}/test) need no Content-Type.
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request body bytes as received (for Idempotency-Key body comparison). */
    rawBody?: Buffer;
  }
}

export const MAX_JSON_DEPTH = 32;
/** Largest accepted request body: 100 listings of ~10 KB each, with room to spare. */
export const DEFAULT_BODY_LIMIT_BYTES = 2 * 1024 * 1024;
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * Content-Encoding values a body may be sent with (docs/ingest.md): those body-parser inflates,
 * less zstd (not every client has it, and nothing needs it). Anything else is a 415 before a byte
 * is read.
 */
export const BODY_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;

export function jsonBody(limitBytes = DEFAULT_BODY_LIMIT_BYTES) {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return (req: Request, res: Response, next: NextFunction): void => {
    const contentType = req.get('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      return next(
        new AppError(
          'unsupported_media_type',
          `Content-Type must be application/json, got "${contentType || 'none'}"`,
        ),
      );
    }
    const encoding = (req.get('content-encoding') ?? 'identity').trim().toLowerCase();
    if (!(BODY_ENCODINGS as readonly string[]).includes(encoding)) {
      return next(
        new AppError(
          'unsupported_media_type',
          `Content-Encoding "${printable(encoding)}" is not supported; send the body as ` +
            `${BODY_ENCODINGS.join(', ')}`,
          { details: { header: 'Content-Encoding', supported: BODY_ENCODINGS } },
        ),
      );
    }
    raw(req, res, (error?: unknown) => {
      if (error) return next(encoding === 'identity' ? error : decompressionError(error, encoding));
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

/**
 * A failure of the inflating stream (truncated gzip, garbage deflate, a plain body labelled br)
 * reaches us as the zlib error with a status of 400 and none of body-parser's `type`s: the
 * client's bytes are wrong, so it is a 400 naming the encoding, never a 500. Errors with a `type`
 * (too large, aborted, …) keep their own answer.
 */
function decompressionError(error: unknown, encoding: string): unknown {
  if (!(error instanceof Error) || (error as { type?: unknown }).type !== undefined) return error;
  return new AppError(
    'invalid_body_encoding',
    `Request body is not valid ${encoding} data (${error.message}); send it as labelled by Content-Encoding`,
    { details: { header: 'Content-Encoding', encoding }, cause: error },
  );
}

/** A header value fit for a message: printable ASCII, at most 40 characters. */
function printable(value: string): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
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
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`);
  }
  // Keys are checked as parsed, not in the raw text: JSON escapes ("\u005f\u005fproto__") spell
  // the same key without its letters appearing in the body.
  const forbidden = forbiddenKeyIn(value);
  if (forbidden !== undefined) throw new AppError('invalid_json', `JSON key "${forbidden}" is not allowed`);
  return value;
}

/** The first forbidden own key anywhere in `value` (depth is bounded by MAX_JSON_DEPTH already). */
function forbiddenKeyIn(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length) {
    const current = pending.pop();
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (const item of current) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (forbiddenKeys.has(key)) return key;
      const child = (current as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') pending.push(child);
    }
  }
  return undefined;
}

/**
 * Deepest bracket nesting outside strings, before JSON.parse: parsing a 2 MB body of nested
 * brackets costs ~200 ms of CPU, the scan a few. Strings (most of a body) are skipped with
 * indexOf rather than walked character by character.
 */
export function maxNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = closingQuote(text, i);
      if (i === -1) return max; // unterminated string: JSON.parse reports it
    } else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Index of the quote closing the string opened at `open` (one not escaped by a backslash), or -1. */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}
