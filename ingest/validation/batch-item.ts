// One item of a batch body (a listing, a status update): anything but a JSON object is refused with
// one error, before the schema; an object gets every error of its schema at once, to which the
// caller adds the rules between fields.
import type { z } from 'zod';
import { fieldErrors, type FieldError } from './field-errors.ts';

export type CheckedItem<T> =
  | { object: false; errors: FieldError[] }
  | { object: true; raw: Record<string, unknown>; parsed: z.ZodSafeParseResult<T>; errors: FieldError[] };

/** `noun` names the item in the not-an-object message ("Each listing must be a JSON object"). */
export function checkBatchItem<S extends z.ZodType>(
  raw: unknown,
  schema: S,
  noun: string,
): CheckedItem<z.output<S>> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      object: false,
      errors: [{ field: '', code: 'invalid_type', message: `Each ${noun} must be a JSON object` }],
    };
  }
  const parsed = schema.safeParse(raw);
  const errors = parsed.success ? [] : fieldErrors(parsed.error.issues, raw);
  return { object: true, raw: raw as Record<string, unknown>, parsed, errors };
}
