// CSV cells are text; the API wants JSON types. The kind of every listing field is read from the
// one listing schema (common/domain/listing.ts), so a field added there is mapped here without a
// second list to keep in step. Conversion is deliberately shallow — it never decides validity:
// a cell that does not look like a number stays a string and the server reports `invalid_type`
// for that row and field, exactly as it would for any other client.
import type { z } from 'zod';
import { listingSchema } from '../../common/domain/listing.ts';

export type FieldKind = 'number' | 'boolean' | 'list' | 'text';

/** Separator of `amenities` and `images` cells (CONTRACT.md "Uploader CLI"). */
export const LIST_SEPARATOR = '|';

function kindOf(schema: z.ZodType): FieldKind {
  let inner = schema;
  // optional(), default() and nullable() wrap the real type.
  while (['optional', 'default', 'nullable'].includes(inner.def.type)) {
    inner = (inner.def as unknown as { innerType: z.ZodType }).innerType;
  }
  switch (inner.def.type) {
    case 'number':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'list';
    default:
      return 'text';
  }
}

export const listingFieldKinds: ReadonlyMap<string, FieldKind> = new Map(
  Object.entries(listingSchema.shape).map(([name, schema]) => [name, kindOf(schema as z.ZodType)]),
);

const numberPattern = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const booleans: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  1: true,
  0: false,
};

/**
 * The JSON value of one cell, or undefined for an empty cell (an omitted field, so the server
 * applies its default or reports `required`). Columns that are not listing fields are sent as text
 * and the server reports them as `unknown_field`.
 */
export function cellValue(kind: FieldKind | undefined, cell: string): unknown {
  const trimmed = cell.trim();
  if (trimmed === '') return undefined;
  switch (kind) {
    case 'number':
      return numberPattern.test(trimmed) ? Number(trimmed) : cell;
    case 'boolean':
      return booleans[trimmed.toLowerCase()] ?? cell;
    case 'list': {
      const items = trimmed
        .split(LIST_SEPARATOR)
        .map((item) => item.trim())
        .filter((item) => item !== '');
      return items.length ? items : undefined;
    }
    default:
      return cell;
  }
}
