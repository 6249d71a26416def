// Validation of one listing of a bulk request: the structural schema (common/domain/listing.ts)
// plus the rules that depend on context — the key's tier (image count), the clock (listed_at
// window), the locations dataset (location_id must exist) and coordinate pairs. Every rule runs,
// so a client sees all the errors of a listing at once, not just the first.
import { tierPolicies, type Tier } from '../../common/auth/tiers.ts';
import {
  currencies,
  isInsideTanzania,
  listingSchema,
  propertyTypes,
  type Currency,
  type Listing,
  type PropertyType,
} from '../../common/domain/listing.ts';
import { parseListingFast } from '../../common/domain/listing-fast-parse.ts';
import { implausibleRentLimit } from '../../common/domain/plausible-rent.ts';
import type { FieldError } from '../validation/field-errors.ts';
import { checkBatchItem } from '../validation/batch-item.ts';
import { locationExists } from './location-exists.ts';

/** Allowed clock skew of clients for "not in the future" checks. */
export const CLOCK_SKEW_MS = 5 * 60_000;
export const LISTED_AT_MAX_AGE_MS = 2 * 365 * 24 * 3600_000;

export type ListingValidation =
  { ok: true; listing: Listing; warnings: FieldError[] } | { ok: false; errors: FieldError[] };

export interface ValidationContext {
  tier: Tier;
  now: number;
}

export function validateListing(raw: unknown, ctx: ValidationContext): ListingValidation {
  // The common valid listing takes the shortcut; anything else (and any error) is the schema's.
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const listing = parseListingFast(raw as Record<string, unknown>);
    if (listing && !contextErrors(raw as Record<string, unknown>, ctx).length)
      return { ok: true, listing, warnings: warningsOf(listing) };
  }
  const item = checkBatchItem(raw, listingSchema, 'listing');
  if (!item.object) return { ok: false, errors: item.errors };
  const { parsed, errors } = item;
  errors.push(...contextErrors(item.raw, ctx));
  if (!parsed.success || errors.length) return { ok: false, errors };
  return { ok: true, listing: parsed.data, warnings: warningsOf(parsed.data) };
}

/** Rules beyond the schema; each looks at the raw value only when it has the right type. */
function contextErrors(raw: Record<string, unknown>, ctx: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  const maxImages = tierPolicies[ctx.tier].maxImagesPerListing;
  if (Array.isArray(raw.images) && raw.images.length > maxImages) {
    errors.push({
      field: 'images',
      code: 'too_many_images',
      message: `At most ${maxImages} images per listing on the ${ctx.tier} tier; got ${raw.images.length}`,
    });
  }
  const hasLat = raw.latitude !== undefined;
  const hasLng = raw.longitude !== undefined;
  if (hasLat !== hasLng) {
    const missing = hasLat ? 'longitude' : 'latitude';
    errors.push({
      field: missing,
      code: 'coordinates_incomplete',
      message: `${missing} is required when ${hasLat ? 'latitude' : 'longitude'} is given`,
    });
  }
  if (typeof raw.location_id === 'string' && /^[0-9a-f-]{36}$/i.test(raw.location_id)) {
    if (!locationExists(raw.location_id)) {
      errors.push({
        field: 'location_id',
        code: 'unknown_location',
        message: `No location with id ${raw.location_id}`,
      });
    }
  }
  const type = raw.property_type;
  const currency = raw.currency ?? 'TZS';
  if (
    typeof raw.price === 'number' &&
    Number.isFinite(raw.price) && // Infinity and NaN are the schema's invalid_type already
    (propertyTypes as readonly unknown[]).includes(type) &&
    (currencies as readonly unknown[]).includes(currency)
  ) {
    const limit = implausibleRentLimit(type as PropertyType, raw.price, currency as Currency);
    if (limit !== undefined) {
      errors.push({
        field: 'price',
        code: 'implausible_price',
        message: `price ${raw.price} ${String(currency)} is above the plausible monthly rent of a ${String(type)} (${limit} ${String(currency)}); check the amount and the currency`,
      });
    }
  }
  if (typeof raw.listed_at === 'string') {
    const at = Date.parse(raw.listed_at);
    if (at > ctx.now + CLOCK_SKEW_MS) {
      errors.push({ field: 'listed_at', code: 'in_future', message: 'listed_at must not be in the future' });
    } else if (at < ctx.now - LISTED_AT_MAX_AGE_MS) {
      errors.push({
        field: 'listed_at',
        code: 'too_old',
        message: 'listed_at must be within the last 2 years',
      });
    }
  }
  return errors;
}

/** Accepted but worth telling the client: coordinates outside Tanzania are stored, not mapped to a city. */
function warningsOf(listing: Listing): FieldError[] {
  if (listing.latitude === undefined || listing.longitude === undefined) return [];
  if (isInsideTanzania(listing.latitude, listing.longitude)) return [];
  return [
    {
      field: 'latitude',
      code: 'outside_tanzania',
      message: 'The coordinates lie outside Tanzania; the listing is stored but counts in no city',
    },
  ];
}
