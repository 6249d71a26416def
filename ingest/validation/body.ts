// A body parser for a route declaration (common/http/route.ts, `body.parse`): the whole body is
// checked against one schema before the handler runs, and a mismatch is a 400 validation_failed
// with `message` (what a valid body looks like) and the per-field errors (field-errors.ts).
import type { z } from 'zod';
import { AppError } from '../../common/errors.ts';
import { fieldErrors } from './field-errors.ts';

export function parseBodyWith<S extends z.ZodType>(schema: S, message: string) {
  return (raw: unknown): z.output<S> => {
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    throw new AppError('validation_failed', message, { details: fieldErrors(parsed.error.issues, raw) });
  };
}
