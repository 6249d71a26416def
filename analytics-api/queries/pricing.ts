// SQL of the pricing endpoint (spec §2.4): one statement returns every part of the answer, each row
// tagged by `part`. Exact medians, averages and extremes come from the neighbourhood_quarter_prices
// aggregate (migration 0012: listings per distinct price), read through its sort key (is_test, city,
// property_type, quarter) for the period and the quarter before in one pass; view counts and the
// market's totals come from the neighbourhood_quarter_stats aggregate (migration 0010), also in one
// pass. Each statement costs a fixed ~3 ms of server CPU here before its first row, more than most
// of these reads, so the parts share one statement rather than one each (~6–9 ms of ClickHouse CPU
// less per answer than four; docs/performance.md, "Pricing in one statement"). Values are
// `{name:Type}` query parameters; `exactMedian` is a constant SQL fragment (interpolated, never
// carrying a value).
import { z } from 'zod';
import { citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, flag, isoDate, nullableNumber } from '../../common/warehouse/query.ts';
import {
  neighbourhoodQuarterPricesTable,
  neighbourhoodQuarterStatsTable,
} from '../../common/warehouse/aggregates.ts';

/**
 * Exact median in one pass over (price, listings) rows. quantileExactWeighted returns the first
 * value (in price order) at which the running weight reaches ceil(level · n): level 0.5 gives
 * element ⌈n/2⌉ (1-based: the lower middle for even n, the middle for odd n) and level 0.5 + 1e-9
 * gives element ⌊n/2⌋ + 1 (the upper middle; the middle for odd n); valid for n < 10^8 per group.
 * Their mean is the textbook median, identical to the mean of quantilesExact(0.499999999, 0.5) over
 * the raw prices (checked on all 12,077 groups of the 10 M-listing benchmark).
 */
export const exactMedian = `arrayReduce('avg', quantilesExactWeighted(0.5, 0.500000001)(price_tzs, n))`;

/** What a row of the pricing statement is. */
export const pricingParts = [
  /** One named (or '') neighbourhood's prices in the period. */
  'current',
  /** The whole city's prices in the period (every neighbourhood, '' included). */
  'total',
  /** One neighbourhood's listing count and median in the quarter before (the trend). */
  'previous',
  /** One neighbourhood's views in the period (`views`). */
  'views',
  /** Listings and views of the whole market (all cities) of the type in the period. */
  'market',
] as const;

const pricingRow = z.object({
  part: z.enum(pricingParts),
  neighbourhood: z.string(),
  listings: count,
  median_price: nullableNumber,
  avg_price: nullableNumber,
  min_price: nullableNumber,
  max_price: nullableNumber,
  views: count,
});
export type PricingRow = z.output<typeof pricingRow>;

/**
 * Every part of one pricing answer. Rows of the quarter before and of the period come from one scan
 * grouped by (quarter, neighbourhood) and by quarter alone; the quarter before's city-wide row is
 * computed there too and dropped (HAVING). Views per neighbourhood of the city and the market's
 * totals come from one scan of every city's rows of the type: grouped by (city, neighbourhood), of
 * which the city's are kept, and the grand total. An empty period has no 'total' row; an empty
 * market may have a 'market' row of zeros or none.
 */
export const pricingStatement = defineQuery({
  name: 'pricing.parts',
  params: z.object({
    isTest: z.boolean(),
    city: z.enum(citySlugs),
    type: z.enum(propertyTypes),
    /** First day of the period's quarter. */
    quarterStart: isoDate,
    /** First day of the quarter before. */
    previousStart: isoDate,
  }),
  row: pricingRow,
  queryParams: (p) => ({
    isTest: flag(p.isTest),
    city: p.city,
    type: p.type,
    quarterStart: p.quarterStart,
    previousStart: p.previousStart,
  }),
  sql: `
    SELECT
      multiIf(quarter != {quarterStart:Date}, 'previous', grouping(neighbourhood) = 1, 'total', 'current') AS part,
      neighbourhood,
      sum(n) AS listings,
      ${exactMedian} AS median_price,
      sum(price_tzs * n) / sum(n) AS avg_price,
      min(price_tzs) AS min_price,
      max(price_tzs) AS max_price,
      toUInt64(0) AS views
    FROM (
      SELECT quarter, neighbourhood, price_tzs, listings AS n
      FROM ${neighbourhoodQuarterPricesTable.name}
      WHERE is_test = {isTest:UInt8}
        AND city = {city:String}
        AND property_type = {type:String}
        AND quarter IN ({quarterStart:Date}, {previousStart:Date})
    )
    GROUP BY GROUPING SETS ((quarter, neighbourhood), (quarter))
    HAVING grouping(neighbourhood) = 0 OR quarter = {quarterStart:Date}
    UNION ALL
    SELECT
      if(grouping(city) = 1, 'market', 'views'),
      neighbourhood,
      sum(listings),
      NULL, NULL, NULL, NULL,
      sum(views)
    FROM ${neighbourhoodQuarterStatsTable.name}
    WHERE is_test = {isTest:UInt8}
      AND quarter = {quarterStart:Date}
      AND property_type = {type:String}
    GROUP BY GROUPING SETS ((city, neighbourhood), ())
    HAVING grouping(city) = 1 OR city = {city:String}`,
});
