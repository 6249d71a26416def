// SQL of the pricing endpoint (spec §2.4), two statements whose rows are tagged by `part`:
// - pricingSummaryStatement, every answer's first: the period's and the quarter before's prepared
//   price figures (neighbourhood_quarter_price_summaries, migration 0120: a few dozen rows), and
//   from the neighbourhood_quarter_stats aggregate (0010) the city's views per neighbourhood, the
//   market's totals and the city's stored listing count of both quarters;
// - pricingPricesStatement when a quarter's summary counts other listings than are stored (a group
//   written since its summary): the price figures computed from neighbourhood_quarter_prices (0012:
//   listings per distinct price), read through its sort key for both quarters in one pass, with the
//   same stats.
// Each statement costs a fixed ~2–3 ms of server CPU here before its first row, so each reads all
// it can in one pass (docs/decisions/0016-pricing-one-statement-and-summaries.md).
// Values are `{name:Type}` query parameters; `exactMedian` is a constant SQL fragment.
import { z } from 'zod';
import { citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import {
  exactMedian,
  neighbourhoodQuarterPricesTable,
  neighbourhoodQuarterStatsTable,
} from '../../common/warehouse/aggregates.ts';
import { neighbourhoodQuarterPriceSummariesTable } from '../../common/warehouse/price-summaries.ts';
import { count, defineQuery, flag, isoDate, nullableNumber } from '../../common/warehouse/query.ts';

/** What a row of the pricing statements is. */
export const pricingParts = [
  /** One named (or '') neighbourhood's prices in the period. */
  'current',
  /** The whole city's prices in the period (every neighbourhood, '' included). */
  'total',
  /** One neighbourhood's listing count and median in the quarter before (the trend). */
  'previous',
  /** The whole city's listing count in the quarter before, as its summary counted it. */
  'previous_total',
  /** One neighbourhood's listings stored and views in the period (`views`). */
  'views',
  /** One neighbourhood's listings stored in the quarter before. */
  'previous_listed',
  /** Listings and views of the rest of the market (every other city) of the type in the period. */
  'elsewhere',
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

const pricingParams = z.object({
  isTest: z.boolean(),
  city: z.enum(citySlugs),
  type: z.enum(propertyTypes),
  /** First day of the period's quarter. */
  quarterStart: isoDate,
  /** First day of the quarter before. */
  previousStart: isoDate,
});

const pricingQueryParams = (p: z.output<typeof pricingParams>) => ({
  isTest: flag(p.isTest),
  city: p.city,
  type: p.type,
  quarterStart: p.quarterStart,
  previousStart: p.previousStart,
});

/**
 * The stats of one answer, in one scan of the type's rows of both quarters grouped per part: the
 * city's neighbourhoods in the period ('views': listings stored and views) and in the quarter before
 * ('previous_listed'), every other city of the period together ('elsewhere'). One plain GROUP BY:
 * grouping sets cost ~1.5 ms more of server CPU here for the same ~40 rows.
 */
const statsSql = `
    SELECT
      multiIf(city != {city:String}, 'elsewhere', quarter = {quarterStart:Date}, 'views', 'previous_listed') AS stats_part,
      if(city = {city:String}, neighbourhood, '') AS area,
      sum(listings),
      NULL, NULL, NULL, NULL,
      sum(views)
    FROM ${neighbourhoodQuarterStatsTable.name}
    WHERE is_test = {isTest:UInt8}
      AND quarter IN ({quarterStart:Date}, {previousStart:Date})
      AND property_type = {type:String}
      AND (quarter = {quarterStart:Date} OR city = {city:String})
    GROUP BY stats_part, area`;

/**
 * Prepared figures and the stats of one answer. The summaries' latest version per key (FINAL: a
 * group prepared again has its older rows until they merge), their city-wide rows of both quarters
 * included ('total', 'previous_total'): what the summaries counted, against the stats' counts.
 */
export const pricingSummaryStatement = defineQuery({
  name: 'pricing.summaries',
  compressResponse: false,
  params: pricingParams,
  row: pricingRow,
  queryParams: pricingQueryParams,
  sql: `
    SELECT
      multiIf(quarter != {quarterStart:Date}, if(city_wide = 1, 'previous_total', 'previous'),
              city_wide = 1, 'total', 'current') AS part,
      neighbourhood,
      listings,
      median_price_tzs AS median_price,
      avg_price_tzs AS avg_price,
      min_price_tzs AS min_price,
      max_price_tzs AS max_price,
      toUInt64(0) AS views
    FROM ${neighbourhoodQuarterPriceSummariesTable.name} FINAL
    WHERE is_test = {isTest:UInt8}
      AND city = {city:String}
      AND property_type = {type:String}
      AND quarter IN ({quarterStart:Date}, {previousStart:Date})
    UNION ALL ${statsSql}`,
});

/**
 * The whole answer with its price parts ('current', 'total', 'previous') computed from every
 * distinct price, and the same stats. Rows of the quarter before and of the period come from one
 * scan grouped by (quarter, neighbourhood) and by quarter alone; the quarter before's city-wide row
 * is computed there too and dropped (HAVING). An empty period has no 'total' row.
 */
export const pricingPricesStatement = defineQuery({
  name: 'pricing.prices',
  compressResponse: false,
  params: pricingParams,
  row: pricingRow,
  queryParams: pricingQueryParams,
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
    UNION ALL ${statsSql}`,
});
