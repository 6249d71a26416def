// The body of a batch endpoint: {"<field>": [1 to max items], "test_mode"?: boolean}. The item
// count is checked before the schema, so a huge array is refused without validating anything in it.
// Only the envelope is parsed here: each item is validated on its own so errors are reported per
// index. The OpenAPI document shows the same envelope with the items' schema (docSchema).
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../common/errors.ts';
import { fieldErrors } from './field-errors.ts';

export interface BatchEnvelopeSpec<F extends string> {
  /** The array's field in the body: listings, events, updates. */
  field: F;
  max: number;
  /** The error code of a request over max. */
  tooManyCode: ErrorCode;
  /** What the items are, in the plural, for the error messages ("view events"). */
  items: string;
  /** The same in the description of a valid body, where it differs ("listing objects"). */
  itemsInBody?: string;
  /** What test_mode does here, for the OpenAPI document. */
  testModeDescription?: string;
}

export type BatchBody<F extends string> = Record<F, unknown[]> & { test_mode?: boolean };

export function batchEnvelope<F extends string>(spec: BatchEnvelopeSpec<F>) {
  const { field, max, items } = spec;
  const schema = z.strictObject({ [field]: z.array(z.unknown()).min(1), test_mode: z.boolean().optional() });
  return {
    parse(body: unknown): BatchBody<F> {
      const array = (body as Record<string, unknown> | null | undefined)?.[field];
      if (Array.isArray(array) && array.length > max) {
        throw new AppError(
          spec.tooManyCode,
          `A request may hold at most ${max} ${items}; got ${array.length}. Split them into several requests.`,
          { details: { max, got: array.length } },
        );
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        throw new AppError(
          'validation_failed',
          `The body must be {"${field}": [1 to ${max} ${spec.itemsInBody ?? items}], "test_mode"?: boolean}`,
          { details: fieldErrors(parsed.error.issues, body) },
        );
      }
      return parsed.data as BatchBody<F>;
    },
    /** The body as the OpenAPI document shows it: 1 to max items of `item`. */
    docSchema(item: z.ZodType) {
      const testMode = z.boolean().optional();
      return z.strictObject({
        [field]: z.array(item).min(1).max(max),
        test_mode: spec.testModeDescription
          ? testMode.meta({ description: spec.testModeDescription })
          : testMode,
      });
    },
  };
}
