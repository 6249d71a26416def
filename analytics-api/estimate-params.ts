// Query parameters of the rent estimates, one zod object per route (query.ts): validated into
// numbers before anything touches SQL or the cache, and the same objects are the routes' parameters
// in the OpenAPI document.
import { z } from 'zod';
import { currencies, propertyTypes, type Currency, type PropertyType } from '../common/domain/listing.ts';
import type { Subject } from '../common/estimate/method.ts';
import { choice, numberParam, parseQuery } from './query.ts';

/** The unit to estimate (its place and size), its type, and the currency of the answer. */
export interface EstimateParams extends Subject {
  type: PropertyType;
  currency: Currency;
}

/** A number as clients print doubles: 6.8, -0.0, 1e-05, 150000.00000000003. */
const DECIMAL = /^[-+]?(\d{1,20}(\.\d{0,30})?|\.\d{1,30})([eE][-+]?\d{1,3})?$/;
const WHOLE = /^\d{1,4}$/;

export const ESTIMATE_LIMITS = {
  latitude: [-90, 90],
  longitude: [-180, 180],
  rooms: [0, 1000],
  areaSqm: [1, 1_000_000],
} as const;

const decimal = (name: string, [min, max]: readonly [number, number]) =>
  numberParam(name, { pattern: DECIMAL, min, max, what: 'a decimal number' });
const rooms = (name: string) => {
  const [min, max] = ESTIMATE_LIMITS.rooms;
  return numberParam(name, { pattern: WHOLE, min, max, what: 'a whole number', integer: true }).optional();
};
const [minArea, maxArea] = ESTIMATE_LIMITS.areaSqm;

/** Absent, the answer is in TZS. */
const currency = choice('currency', currencies).optional().meta({
  description: 'Currency of the answer (default TZS); comparables are compared in TZS at their stored rate',
});

export const estimateQuery = z.object({
  lat: decimal('lat', ESTIMATE_LIMITS.latitude).meta({ description: 'Latitude (decimal degrees)' }),
  lng: decimal('lng', ESTIMATE_LIMITS.longitude).meta({ description: 'Longitude (decimal degrees)' }),
  type: choice('type', propertyTypes),
  bedrooms: rooms('bedrooms'),
  bathrooms: rooms('bathrooms'),
  area_sqm: numberParam('area_sqm', {
    pattern: DECIMAL,
    min: minArea,
    max: maxArea,
    what: 'a number of square metres',
  })
    .optional()
    .meta({ description: 'Floor area in m²' }),
  currency,
});

export function parseEstimateParams(query: Record<string, unknown>): EstimateParams {
  const q = parseQuery(estimateQuery, query);
  return {
    latitude: q.lat,
    longitude: q.lng,
    type: q.type,
    bedrooms: q.bedrooms ?? null,
    bathrooms: q.bathrooms ?? null,
    areaSqm: q.area_sqm ?? null,
    currency: q.currency ?? 'TZS',
  };
}

export const listingEstimateQuery = z.object({
  currency,
  // Only the value true opts in; any other value reads the key's own mode.
  test_mode: z.enum(['true', 'false']).optional().catch(undefined),
});

export function parseListingEstimateParams(query: Record<string, unknown>): {
  currency: Currency;
  testMode: boolean;
} {
  const q = parseQuery(listingEstimateQuery, query);
  return { currency: q.currency ?? 'TZS', testMode: q.test_mode === 'true' };
}
