// The body of a batch endpoint: {"<field>": [1 to max items], "test_mode"?: boolean}. The item
// count is checked before the schema, so a huge array is refused without validating anything in it.
import type { z } from 'zod';
import { AppError, type ErrorCode } from '../../common/errors.ts';
import { fieldErrors } from './field-errors.ts';

export interface BatchEnvelope<S extends z.ZodType> {
  /** The array's field in the body: listings, events, updates. */
  field: string;
  max: number;
  /** The error code of a request over max. */
  tooManyCode: ErrorCode;
  /** What the items are, in the plural, for the error messages ("view events"). */
  items: string;
  /** The same in the description of a valid body, where it differs ("listing objects"). */
  itemsInBody?: string;
  schema: S;
}

export function parseBatchEnvelope<S extends z.ZodType>(
  body: unknown,
  envelope: BatchEnvelope<S>,
): z.output<S> {
  const { field, max, items } = envelope;
  const array = (body as Record<string, unknown> | null | undefined)?.[field];
  if (Array.isArray(array) && array.length > max) {
    throw new AppError(
      envelope.tooManyCode,
      `A request may hold at most ${max} ${items}; got ${array.length}. Split them into several requests.`,
      { details: { max, got: array.length } },
    );
  }
  const parsed = envelope.schema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'validation_failed',
      `The body must be {"${field}": [1 to ${max} ${envelope.itemsInBody ?? items}], "test_mode"?: boolean}`,
      { details: fieldErrors(parsed.error.issues, body) },
    );
  }
  return parsed.data;
}
