// The lifecycle analytics paths in the OpenAPI document: velocity, seasonality, market share. The
// rules behind the numbers are in docs/analytics.md, "Listing lifecycle metrics".
import { z } from 'zod';
import { citySlugs } from '../common/domain/cities.ts';
import { propertyTypes } from '../common/domain/listing.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { periodParameter } from './openapi.ts';
import { MONTH_PATTERN } from './period.ts';
import { MAX_SEASONALITY_MONTHS, SEASONALITY_MONTHS_PATTERN } from './params.ts';

const days = z.number().nullable();
const velocityFigures = {
  rented: z
    .number()
    .int()
    .nullable()
    .describe(
      'Listings rented in the period (exits by the at of their rented status); null when market_suppressed',
    ),
  withdrawn: z.number().int().nullable(),
  expired: z.number().int().nullable(),
  new_listings: z
    .number()
    .int()
    .nullable()
    .describe('Market entries in the period: new listings and relists'),
  active: z
    .number()
    .int()
    .nullable()
    .describe('On the market at the end of the period (today while it runs)'),
  average_active: z.number().nullable().describe('Mean of the daily stock over the period so far'),
  absorption: z.number().nullable().describe('rented ÷ average_active'),
  median_days_to_rent: days.describe('Exact median; null (suppressed) under 10 rentals'),
  p25_days_to_rent: days.describe('Nearest rank; null under 30 rentals'),
  p75_days_to_rent: days,
  median_days_to_withdraw: days.describe('Withdrawn and expired together; same thresholds'),
  p25_days_to_withdraw: days,
  p75_days_to_withdraw: days,
  km_median_days_to_rent: days.describe(
    'Kaplan–Meier median over the spells that started in the period; listings still on the market are censored',
  ),
  suppressed: z.boolean().describe('median_days_to_rent is null: fewer than 10 rentals'),
  quartiles_suppressed: z.boolean(),
  km_suppressed: z.boolean(),
  market_suppressed: z
    .boolean()
    .describe(
      "Every figure of the area is null: fewer than 5 other accounts have listings in it, or one holds more than 25 % of the rest (market share's rule)",
    ),
};

export const velocityResponseSchema = z.object({
  city: z.string(),
  property_type: z.enum(propertyTypes),
  period: z.string(),
  summary: z.object(velocityFigures),
  by_neighborhood: z.array(z.object({ name: z.string(), ...velocityFigures })),
  definition: z.string().describe('The rule version and its definition'),
});

const shareFigures = {
  own_listings: z.number().int().describe("The account's listings on the market at the end of the period"),
  market_listings: z.number().int().nullable().describe('All accounts; null when suppressed'),
  share: z.number().nullable(),
  suppressed: z.boolean().describe('Fewer than 5 other accounts, or one holds more than 25 % of the rest'),
  own_new_listings: z.number().int(),
  market_new_listings: z.number().int().nullable(),
  new_listings_share: z.number().nullable(),
  new_listings_suppressed: z.boolean(),
  own_rented: z.number().int(),
  market_rented: z.number().int().nullable(),
  rented_share: z.number().nullable(),
  rented_suppressed: z.boolean(),
  own_views: z.number().int(),
  market_views: z.number().int().nullable(),
  views_share: z.number().nullable(),
  views_suppressed: z.boolean(),
};

export const marketShareResponseSchema = z.object({
  city: z.string(),
  property_type: z.enum(propertyTypes),
  period: z.string(),
  summary: z.object(shareFigures),
  by_neighborhood: z.array(z.object({ name: z.string(), ...shareFigures })),
});

export const seasonalityResponseSchema = z.object({
  city: z.string(),
  property_type: z.enum(propertyTypes),
  status: z.enum(['insufficient_history', 'provisional', 'ok']),
  history_months: z.number().int(),
  mix_weights: z.array(z.object({ bedrooms: z.string(), weight: z.number() })),
  months: z.array(
    z.object({
      month: z.string().describe('YYYY-MM'),
      median_price_tzs: z
        .number()
        .nullable()
        .describe('Mix-adjusted (fixed bedroom weights) median asking rent'),
      raw_median_price_tzs: z.number().nullable(),
      listed: z.number().int().describe('Listings listed that month (the rents)'),
      new_listings: z.number().int(),
      views: z.number().int(),
      average_active: z.number(),
      views_per_active_listing: z.number().nullable(),
      rented: z.number().int(),
      median_days_to_rent: z.number().nullable(),
    }),
  ),
  month_of_year_index: z
    .array(
      z.object({
        month: z.number().int().describe('1 = January'),
        price_index: z.number().nullable(),
        new_listings_index: z.number().nullable(),
        years: z.number().int(),
      }),
    )
    .nullable(),
});

const city = { name: 'city', in: 'query' as const, required: true, schema: z.enum(citySlugs) };
const type = { name: 'type', in: 'query' as const, required: true, schema: z.enum(propertyTypes) };
const period = periodParameter; // exactly the quarters the server accepts
const cacheHeader = { 'X-Cache': 'hit, miss or off: whether the answer came from the analytics cache' };
const tiers = 'Tiers business and enterprise (permission analytics:read).';

export function registerMarketPaths(registry: OpenApiRegistry): void {
  registry.register({
    method: 'get',
    path: '/analytics/velocity',
    operationId: 'getVelocity',
    summary: 'How fast listings leave the market: days to rent, stock, absorption, Kaplan–Meier',
    description: `Live keys see live data, test keys test data. ${tiers} See docs/analytics.md.`,
    tags: ['analytics'],
    parameters: [city, type, period],
    responses: { 200: { description: 'Velocity', schema: velocityResponseSchema, headers: cacheHeader } },
    errors: [400, 503],
  });
  registry.register({
    method: 'get',
    path: '/analytics/seasonality',
    operationId: 'getSeasonality',
    summary: 'Monthly series of rents, new listings, views and days to rent, with a month-of-year index',
    description: `status: insufficient_history under 12 months (no index), provisional for 12–23, ok from 24. ${tiers} See docs/analytics.md.`,
    tags: ['analytics'],
    parameters: [
      city,
      type,
      {
        name: 'months',
        in: 'query',
        description: `Length of the series, 1–${MAX_SEASONALITY_MONTHS} (default 24)`,
        schema: z.string().regex(new RegExp(SEASONALITY_MONTHS_PATTERN)),
      },
      {
        name: 'end',
        in: 'query',
        description: 'Last month YYYY-MM, 1971-01 to 2100-12 (default: the last complete month, UTC)',
        schema: z.string().regex(new RegExp(MONTH_PATTERN)),
      },
    ],
    responses: {
      200: { description: 'Seasonality', schema: seasonalityResponseSchema, headers: cacheHeader },
    },
    errors: [400, 503],
  });
  registry.register({
    method: 'get',
    path: '/analytics/market-share',
    operationId: 'getMarketShare',
    summary:
      "The calling account's share of stock, new listings, rentals and views, against the anonymous rest",
    description:
      'Other accounts are never named or ranked; a market figure with fewer than 5 other accounts behind ' +
      'it, or where one other account holds more than 25 % of the rest, is null with suppressed: true ' +
      `(own counts always show). ${tiers} See docs/analytics.md.`,
    tags: ['analytics'],
    parameters: [city, type, period],
    responses: {
      200: { description: 'Market share', schema: marketShareResponseSchema, headers: cacheHeader },
    },
    errors: [400, 503],
  });
}
