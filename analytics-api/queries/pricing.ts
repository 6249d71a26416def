// SQL of the pricing endpoint (spec §2.4). Exact medians, averages and extremes come from the price
// buckets of migration 0110: per bucket the listings, price sum and extremes (`priceBuckets`), then
// the exact per-price counts of the buckets that hold the middle listings alone (`bucketPrices`);
// services/price-medians.ts walks them. View counts come from the neighbourhood_quarter_stats
// aggregate (migration 0010). Values are `{name:Type}` query parameters; `exactMedian` below is a
// constant SQL fragment (interpolated into statements that read raw (price_tzs, n) rows, never
// carrying a value).
import { z } from 'zod';
import { citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, flag, isoDate } from '../../common/warehouse/query.ts';
import {
  neighbourhoodQuarterBucketPricesTable,
  neighbourhoodQuarterPriceBucketsTable,
  neighbourhoodQuarterStatsTable,
} from '../../common/warehouse/aggregates.ts';

const quarterParams = z.object({
  isTest: z.boolean(),
  city: z.enum(citySlugs),
  type: z.enum(propertyTypes),
  /** First day of the quarter to read. */
  quarterStart: isoDate,
});

/** The values of the placeholders the statements share. */
const quarterQueryParams = (p: z.output<typeof quarterParams>) => ({
  isTest: flag(p.isTest),
  city: p.city,
  type: p.type,
  quarterStart: p.quarterStart,
});

/**
 * Exact median in one pass over (price, listings) rows. quantileExactWeighted returns the first
 * value (in price order) at which the running weight reaches ceil(level · n): level 0.5 gives
 * element ⌈n/2⌉ (1-based: the lower middle for even n, the middle for odd n) and level 0.5 + 1e-9
 * gives element ⌊n/2⌋ + 1 (the upper middle; the middle for odd n); valid for n < 10^8 per group.
 * Their mean is the textbook median, identical to the mean of quantilesExact(0.499999999, 0.5) over
 * the raw prices (checked on all 12,077 groups of the 10 M-listing benchmark).
 */
export const exactMedian = `arrayReduce('avg', quantilesExactWeighted(0.5, 0.500000001)(price_tzs, n))`;

const bucket = z.number().int().min(0).max(65_535);

/** Per neighbourhood and price bucket of one city, type and quarter, in no particular order. */
export const priceBuckets = defineQuery({
  name: 'pricing.price_buckets',
  compact: true,
  params: quarterParams,
  /** [neighbourhood, bucket, listings, price_tzs_sum, min_price_tzs, max_price_tzs] */
  row: z.tuple([z.string(), bucket, count, z.number(), z.number(), z.number()]),
  queryParams: quarterQueryParams,
  sql: `
    SELECT neighbourhood, bucket, sum(listings) AS listings, sum(price_tzs_sum) AS price_tzs_sum,
      min(min_price_tzs) AS min_price_tzs, max(max_price_tzs) AS max_price_tzs
    FROM ${neighbourhoodQuarterPriceBucketsTable.name}
    WHERE is_test = {isTest:UInt8}
      AND city = {city:String}
      AND property_type = {type:String}
      AND quarter = {quarterStart:Date}
    GROUP BY neighbourhood, bucket`,
});

/**
 * Listings per exact price of the given (neighbourhood, bucket) pairs (the two arrays, element by
 * element) of one city, type and quarter: the sort key reads those buckets' granules alone.
 */
export const bucketPrices = defineQuery({
  name: 'pricing.bucket_prices',
  compact: true,
  params: quarterParams.extend({
    pairs: z
      .array(z.object({ neighbourhood: z.string(), bucket }))
      .min(1)
      .max(10_000),
  }),
  /** [neighbourhood, bucket, price_tzs, listings] */
  row: z.tuple([z.string(), bucket, z.number(), count]),
  queryParams: (p) => ({
    ...quarterQueryParams(p),
    neighbourhoods: p.pairs.map((pair) => pair.neighbourhood),
    buckets: p.pairs.map((pair) => pair.bucket),
  }),
  sql: `
    SELECT neighbourhood, bucket, price_tzs, sum(listings) AS listings
    FROM ${neighbourhoodQuarterBucketPricesTable.name}
    WHERE is_test = {isTest:UInt8}
      AND city = {city:String}
      AND property_type = {type:String}
      AND quarter = {quarterStart:Date}
      AND (neighbourhood, bucket) IN arrayZip({neighbourhoods:Array(String)}, {buckets:Array(UInt16)})
    GROUP BY neighbourhood, bucket, price_tzs`,
});

const viewsRow = z.object({ neighbourhood: z.string(), views: count });

/** Views per neighbourhood of one city in the period (views belong to the quarter of viewed_at). */
export const neighbourhoodViews = defineQuery({
  name: 'pricing.neighbourhood_views',
  params: quarterParams,
  row: viewsRow,
  queryParams: quarterQueryParams,
  sql: `
    SELECT neighbourhood, sum(views) AS views
    FROM ${neighbourhoodQuarterStatsTable.name}
    WHERE is_test = {isTest:UInt8}
      AND quarter = {quarterStart:Date}
      AND property_type = {type:String}
      AND city = {city:String}
    GROUP BY neighbourhood`,
});
