// A hand-written parse of the common, valid listing that gives exactly what listingSchema gives
// (same fields, same order, trimmed text, the default currency), at a fraction of zod's CPU: zod
// runs every field through its generic check pipeline and allocates per field and per check. It is
// only a shortcut: whenever anything is unusual it answers "not sure" (undefined) and the caller
// runs the schema, so every refusal and every error message stays zod's. A field its own quick
// check is not sure of (a URL with a port, a datetime) is parsed by that field's own schema, which
// is exactly what the object schema does with it. test/unit/listing-fast-parse.test.ts compares
// both on generated valid and invalid listings.
import { z } from 'zod';
import {
  currencies,
  externalIdPattern,
  listingBounds,
  listingSchema,
  MAX_DESCRIPTION_LENGTH,
  MAX_IMAGES_ANY_TIER,
  MAX_TITLE_LENGTH,
  MAX_URL_LENGTH,
  propertyTypes,
  type Listing,
} from './listing.ts';

const NOT_SURE = Symbol('not sure');
type FieldParse = (value: unknown) => unknown;

const shape = listingSchema.shape;
type Key = keyof typeof shape;

/** text().trim().min(min).max(max): well-formed, trimmed, then measured. */
const trimmedText = (max: number) => (value: unknown) => {
  if (typeof value !== 'string' || !value.isWellFormed()) return NOT_SURE;
  const trimmed = value.trim();
  return trimmed.length >= 1 && trimmed.length <= max ? trimmed : NOT_SURE;
};

/** text() with a pattern check and no transform: the value itself. */
const patternText = (pattern: RegExp) => (value: unknown) =>
  typeof value === 'string' && value.isWellFormed() && pattern.test(value) ? value : NOT_SURE;

const number = (ok: (n: number) => boolean) => (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && ok(value) ? value : NOT_SURE;

const oneOf = (values: readonly string[]) => (value: unknown) =>
  (values as readonly unknown[]).includes(value) ? value : NOT_SURE;

// http(s)://host[/?#…] with a lower-case DNS name (zod's domain pattern, lower case only) and
// printable ASCII after it: the URL parser accepts such a string with `host` as its hostname (a
// path, query or fragment never fails to parse), so zod's URL check passes and returns the string
// unchanged. Punycode labels (xn--) are left to zod: parsers decode them and may refuse them, and
// Node versions differ there. Anything else (IP hosts, ports, user info, upper case, spaces) goes
// to the field's schema.
const simpleHttpUrl = /^https?:\/\/((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})(?:[/?#][!-~]*)?$/;
const MAX_DOMAIN_LENGTH = 253;
const httpUrl = (value: unknown) => {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return NOT_SURE;
  const host = simpleHttpUrl.exec(value)?.[1];
  return host !== undefined && host.length <= MAX_DOMAIN_LENGTH && !host.includes('xn--') ? value : NOT_SURE;
};

/** Each item parsed; the input array itself when every item parses to itself. */
const arrayOf = (item: FieldParse, max: number) => (value: unknown) => {
  if (!Array.isArray(value) || value.length > max) return NOT_SURE;
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const parsed = item(value[i]);
    if (parsed === NOT_SURE) return NOT_SURE;
    if (parsed !== value[i]) out ??= value.slice(0, i);
    if (out) out[i] = parsed;
  }
  return out ?? value;
};

/** The quick check, else the value's own schema (what the object schema runs for it). */
const orSchema =
  (schema: z.ZodType, quick: FieldParse): FieldParse =>
  (value) => {
    const parsed = quick(value);
    if (parsed !== NOT_SURE) return parsed;
    const result = schema.safeParse(value);
    return result.success ? result.data : NOT_SURE;
  };

const imageUrlSchema = shape.images.unwrap().element;

const { maxPrice, maxRooms, maxAreaSqm, maxAddressLength, maxAmenities, maxAmenityLength } = listingBounds;
const rooms = number((n) => Number.isInteger(n) && n >= 0 && n <= maxRooms);

/** Per key of the schema, in the schema's order (the output keeps it). */
const fields: Record<Key, FieldParse> = {
  title: trimmedText(MAX_TITLE_LENGTH),
  description: trimmedText(MAX_DESCRIPTION_LENGTH),
  property_type: oneOf(propertyTypes),
  price: number((n) => n > 0 && n <= maxPrice),
  currency: oneOf(currencies),
  bedrooms: rooms,
  bathrooms: rooms,
  area_sqm: number((n) => n > 0 && n <= maxAreaSqm),
  address: trimmedText(maxAddressLength),
  latitude: number((n) => n >= -90 && n <= 90),
  longitude: number((n) => n >= -180 && n <= 180),
  amenities: arrayOf(trimmedText(maxAmenityLength), maxAmenities),
  images: arrayOf(orSchema(imageUrlSchema, httpUrl), MAX_IMAGES_ANY_TIER),
  video_url: orSchema(shape.video_url, httpUrl),
  whatsapp_number: patternText(z.regexes.e164),
  location_id: patternText(z.regexes.uuid()),
  external_id: patternText(externalIdPattern),
  listed_at: orSchema(shape.listed_at, () => NOT_SURE),
};
const keys = Object.keys(fields) as Key[];
const position = new Map<string, number>(keys.map((key, i) => [key, i]));
const required = new Set<Key>(['title', 'description', 'property_type', 'price']);
const DEFAULT_CURRENCY: Listing['currency'] = 'TZS';

/**
 * `listingSchema.parse(raw)` for a listing the shortcut is sure of; undefined when it is not (an
 * unknown or missing field, a value out of bounds, anything the schema would refuse or that needs
 * a closer look): then run the schema. When the schema's output would equal `raw` (its keys in
 * the schema's order, nothing trimmed, the currency given), `raw` itself is returned: one copy of
 * each listing less to keep alive while the request waits for Redis and Kafka.
 */
export function parseListingFast(raw: Record<string, unknown>): Listing | undefined {
  let ordered = true;
  let previous = -1;
  for (const key in raw) {
    const at = position.get(key);
    if (at === undefined || !Object.hasOwn(raw, key)) return undefined;
    if (at < previous) ordered = false;
    previous = at;
  }
  let unchanged = ordered;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = raw[key];
    if (value === undefined) {
      // JSON has no undefined: present-but-undefined is left to the schema.
      if (Object.hasOwn(raw, key) || required.has(key)) return undefined;
      if (key === 'currency') {
        out.currency = DEFAULT_CURRENCY;
        unchanged = false;
      }
      continue;
    }
    const parsed = fields[key](value);
    if (parsed === NOT_SURE) return undefined;
    if (parsed !== value) unchanged = false;
    out[key] = parsed;
  }
  return (unchanged && Object.getPrototypeOf(raw) === Object.prototype ? raw : out) as Listing;
}
