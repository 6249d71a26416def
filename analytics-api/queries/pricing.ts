// SQL of the pricing endpoint (spec §2.4). Exact medians, averages and extremes come from the
// neighbourhood_quarter_prices aggregate (migration 0012: listings per distinct price), read through
// its sort key (is_test, city, property_type, quarter); view counts come from the
// neighbourhood_quarter_stats aggregate (migration 0010). The period and the quarter before (for
// the trend) are two statements the service runs in parallel: one pass over both quarters with -If
// combinators measured slower, because WITH TOTALS then merges the previous quarter's states too.
// Values are `{name:Type}` query parameters; `exactMedian` and `prices` below are constant SQL
// fragments shared by the statements (interpolated into their text, never carrying a value).
import { z } from 'zod';
import { citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, flag, isoDate, nullableNumber } from '../../common/warehouse/query.ts';
import {
  neighbourhoodQuarterPricesTable,
  neighbourhoodQuarterStatsTable,
} from '../../common/warehouse/aggregates.ts';

const quarterParams = z.object({
  isTest: z.boolean(),
  city: z.enum(citySlugs),
  type: z.enum(propertyTypes),
  /** First day of the quarter to read. */
  quarterStart: isoDate,
});

/** The values of the placeholders all three statements share. */
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

/** (neighbourhood, price_tzs, n = listings at that price) of one city, type and quarter. */
const prices = `(
      SELECT neighbourhood, price_tzs, listings AS n
      FROM ${neighbourhoodQuarterPricesTable.name}
      WHERE is_test = {isTest:UInt8}
        AND city = {city:String}
        AND property_type = {type:String}
        AND quarter = {quarterStart:Date}
    )`;

const priceRow = z.object({
  neighbourhood: z.string(),
  listings: count,
  median_price: nullableNumber,
  avg_price: nullableNumber,
  min_price: nullableNumber,
  max_price: nullableNumber,
});
export type PriceRow = z.output<typeof priceRow>;

/** Per neighbourhood (and, as the totals row, the whole city) for one quarter. */
export const neighbourhoodPrices = defineQuery({
  name: 'pricing.neighbourhood_prices',
  params: quarterParams,
  row: priceRow,
  totals: true,
  queryParams: quarterQueryParams,
  sql: `
    SELECT
      neighbourhood,
      sum(n) AS listings,
      ${exactMedian} AS median_price,
      sum(price_tzs * n) / sum(n) AS avg_price,
      min(price_tzs) AS min_price,
      max(price_tzs) AS max_price
    FROM ${prices}
    GROUP BY neighbourhood WITH TOTALS`,
});

const medianRow = z.object({ neighbourhood: z.string(), listings: count, median_price: nullableNumber });

/** Per-neighbourhood listing count and median of one quarter (the trend's previous quarter). */
export const neighbourhoodMedians = defineQuery({
  name: 'pricing.neighbourhood_medians',
  params: quarterParams,
  row: medianRow,
  queryParams: quarterQueryParams,
  sql: `
    SELECT neighbourhood, sum(n) AS listings, ${exactMedian} AS median_price
    FROM ${prices}
    GROUP BY neighbourhood`,
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
