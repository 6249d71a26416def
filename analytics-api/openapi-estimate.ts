// The rent estimate paths in the OpenAPI document: a point's estimate (contract) and a stored
// listing's for its owner. The method and the backtest behind the numbers: docs/analytics.md,
// "Rent estimates".
import { z } from 'zod';
import { currencies, propertyTypes } from '../common/domain/listing.ts';
import { bedroomClasses } from '../common/estimate/method.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { ESTIMATE_LIMITS } from './estimate-params.ts';

const figure = z.number().nullable();

export const estimateResponseSchema = z.object({
  estimate: z.object({
    rent: z.number().describe('Estimated monthly asking rent (TZS: whole thousands; USD: whole dollars)'),
    low: z.number().describe('Interval low: estimate × the backtest’s 10th-percentile ratio of the segment'),
    high: z.number().describe('Interval high: estimate × the backtest’s 90th-percentile ratio'),
    currency: z.enum(currencies),
    kind: z.literal('asking_rent').describe('An estimate of the asking rent, not of an agreed rent'),
    interval_target: z
      .number()
      .nullable()
      .describe('Intended coverage of low–high (0.8); null when uncalibrated'),
    interval_calibrated: z
      .boolean()
      .describe(
        'False before any backtest: low–high are then the comparables’ weighted 10th–90th percentiles',
      ),
  }),
  radius_km: z.number().describe('Search radius actually used (1, 2, 5 or 10)'),
  max_age_days: z.number().int().describe('Age window actually used (90 or 365)'),
  comparables: z.array(
    z.object({
      listing_id: z
        .string()
        .nullable()
        .describe('The calling account’s own listings only; null for other accounts’ listings'),
      price: z.number().describe('Asking rent in the answer’s currency'),
      distance_km: z.number().describe('Rounded to the nearest 0.5 km'),
      days_old: z.number().int().describe('Whole days since it was listed'),
      bedrooms: z.number().int().nullable(),
      bathrooms: z.number().int().nullable(),
      area_sqm: z.number().nullable(),
      similarity: z
        .number()
        .describe('0–1: bedrooms, floor area and bathrooms alike (distance and age not included)'),
    }),
  ),
  off_market_comparables: z
    .number()
    .int()
    .describe('Comparables used that are off the market (rented, withdrawn, expired): counted, not listed'),
  accuracy: z.object({
    segment: z.object({
      city: z.string().nullable().describe('City slug of the point; null outside the ten cities'),
      property_type: z.enum(propertyTypes),
      bedrooms: z.enum(bedroomClasses),
    }),
    n: z.number().int().describe('Listings of the segment the latest backtest estimated'),
    median_ape: figure.describe('Median absolute percentage error (0.15 = 15 %)'),
    within_10pct: figure,
    within_20pct: figure,
    interval_coverage: figure.describe('Share of the backtest’s actual asking rents inside their interval'),
    interval_target: figure,
    baseline_median_ape: figure.describe('The naive baseline’s (segment median of the prior 90 days)'),
    baseline_within_10pct: figure,
    interval_calibration: z.enum(['segment', 'city_type', 'type', 'all', 'none']),
    backtest: z.object({ run_at: z.string(), from_month: z.string(), to_month: z.string() }).nullable(),
  }),
  subject: z.object({
    latitude: z.number(),
    longitude: z.number(),
    property_type: z.enum(propertyTypes),
    bedrooms: z.number().int().nullable(),
    bathrooms: z.number().int().nullable(),
    area_sqm: z.number().nullable(),
    city: z.string().nullable(),
  }),
  usd_tzs: z.number().describe('USD→TZS rate of USD answers (FX_USD_TZS)'),
  definition: z.string(),
});

export const listingEstimateResponseSchema = estimateResponseSchema.extend({
  listing: z.object({
    listing_id: z.string(),
    asking_rent: z.number().describe('The listing’s asking rent in the answer’s currency'),
    position: z.enum(['over', 'within', 'under']).describe('Against the interval low–high'),
    difference_pct: z.number().describe('(asking ÷ estimate − 1) × 100'),
  }),
});

const currency = {
  name: 'currency',
  in: 'query' as const,
  description: 'Currency of the answer (default TZS); comparables are compared in TZS at their stored rate',
  schema: z.enum(currencies),
};
const cacheHeader = { 'X-Cache': 'hit, miss or off: whether the answer came from the analytics cache' };
const tiers = 'Tiers business and enterprise (permission analytics:read).';
const range = ([min, max]: readonly [number, number]) => z.number().min(min).max(max);
const rooms = range(ESTIMATE_LIMITS.rooms).int();

export function registerEstimatePaths(registry: OpenApiRegistry): void {
  registry.register({
    method: 'get',
    path: '/analytics/estimate',
    operationId: 'getRentEstimate',
    summary: 'Asking-rent estimate for a unit at a point, with its comparables and measured accuracy',
    description:
      'Comparables of the same type and mode (±1 bedroom, floor area within 1.5×), nearest first, ' +
      'widening 1 → 2 → 5 → 10 km over 90, then 365 days until 5 are found; 422 ' +
      `insufficient_comparables (details.searched) when none holds 5. ${tiers} See docs/analytics.md.`,
    tags: ['analytics'],
    parameters: [
      {
        name: 'lat',
        in: 'query',
        required: true,
        schema: range(ESTIMATE_LIMITS.latitude),
        description: 'Latitude (decimal degrees)',
      },
      {
        name: 'lng',
        in: 'query',
        required: true,
        schema: range(ESTIMATE_LIMITS.longitude),
        description: 'Longitude (decimal degrees)',
      },
      { name: 'type', in: 'query', required: true, schema: z.enum(propertyTypes) },
      { name: 'bedrooms', in: 'query', schema: rooms },
      { name: 'bathrooms', in: 'query', schema: rooms },
      {
        name: 'area_sqm',
        in: 'query',
        schema: range(ESTIMATE_LIMITS.areaSqm),
        description: 'Floor area in m²',
      },
      currency,
    ],
    responses: {
      200: { description: 'Estimate', schema: estimateResponseSchema, headers: cacheHeader },
    },
    errors: [400, 422, 503],
  });
  registry.register({
    method: 'get',
    path: '/listings/{listing_id}/estimate',
    operationId: 'getListingRentEstimate',
    summary:
      'The rent estimate of one of your listings, and whether its asking rent is over, within or under',
    description:
      'From the other listings only (never the listing itself nor any listing with its fingerprint). ' +
      `Owning account only (others get 404), keys of the listing's mode (test_mode=true for a live key's test listings). ${tiers}`,
    tags: ['analytics'],
    parameters: [
      { name: 'listing_id', in: 'path', schema: z.string() },
      currency,
      { name: 'test_mode', in: 'query', schema: z.enum(['true', 'false']) },
    ],
    responses: {
      200: { description: 'Estimate', schema: listingEstimateResponseSchema, headers: cacheHeader },
    },
    errors: [400, 404, 422, 503],
  });
}
