// The rent estimate answers (services/estimate.ts, listing-estimate.ts): their types and their
// schemas in the OpenAPI document.
import { z } from 'zod';
import { currencies, propertyTypes } from '../../common/domain/listing.ts';
import { bedroomClasses } from '../../common/estimate/method.ts';
import { DISTANCE_BAND_LABELS } from '../services/distance-bands.ts';

const figure = z.number().nullable();

export const accuracyAnswerSchema = z.object({
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
});

export const estimateAnswerSchema = z.object({
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
      distance_km: z
        .number()
        .describe(
          'From subject.search_center. Your own listings: the distance, to 0.01 km. Other accounts’ ' +
            'listings: the upper bound of distance_band (1, 2, 5 or 10), never the distance itself',
        ),
      distance_band: z
        .enum(DISTANCE_BAND_LABELS)
        .describe(
          'The band of the distance from subject.search_center (upper bound inclusive): the search ' +
            'radii 1, 2, 5, 10 km. Comparables are listed by distance_km, then price',
        ),
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
  accuracy: accuracyAnswerSchema,
  subject: z.object({
    latitude: z.number().describe('As asked'),
    longitude: z.number().describe('As asked'),
    search_center: z
      .object({
        latitude: z.number(),
        longitude: z.number(),
        h3_index: z.string().describe('Resolution-8 H3 cell, decimal 64-bit index'),
      })
      .describe(
        'Where the search started and distances are measured from: the centre of the point’s ' +
          'resolution-8 H3 cell (every point of a cell gets the same answer); for a listing’s ' +
          'estimate, the listing’s own position',
      ),
    property_type: z.enum(propertyTypes),
    bedrooms: z.number().int().nullable(),
    bathrooms: z.number().int().nullable(),
    area_sqm: z.number().nullable(),
    city: z.string().nullable(),
  }),
  usd_tzs: z.number().describe('USD→TZS rate of USD answers (FX_USD_TZS)'),
  definition: z.string(),
});

export const listingEstimateAnswerSchema = estimateAnswerSchema.extend({
  listing: z.object({
    listing_id: z.string(),
    asking_rent: z.number().describe('The listing’s asking rent in the answer’s currency'),
    position: z.enum(['over', 'within', 'under']).describe('Against the interval low–high'),
    difference_pct: z.number().describe('(asking ÷ estimate − 1) × 100'),
  }),
});

export type AccuracyAnswer = z.infer<typeof accuracyAnswerSchema>;
export type EstimateAnswer = z.infer<typeof estimateAnswerSchema>;
export type ListingEstimateAnswer = z.infer<typeof listingEstimateAnswerSchema>;
